#!/usr/bin/env python3
"""Random-conversation differential check for toolwright's chat-template renderer.

Generates seeded random conversations (roles, string/typed/None content, reasoning, parallel
tool calls with object or JSON-string arguments, tool results, tools/enable_thinking/effort
flags), renders every llama.cpp test template with Python Jinja2 set up as in
render-goldens.py, and writes {"now", "contexts", "cases"} to OUT. Run the TypeScript side with
    TEMPLATE_FUZZ=OUT npx vitest run test/oracle/template-parity.test.ts

Usage: python3 scripts/template-fuzz.py SEED COUNT OUT
"""
import importlib.util
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("render_goldens", os.path.join(HERE, "render-goldens.py"))
rg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rg)

TEXTS = ["Hi", "", "  padded  ", "multi\nline\n\ntext", "<think>inner</think>answer", "quote ' and \" and \\",
         "ünïcode 東京 🎉", "{{ not jinja }}", "%s %d {0}", "line\r\nbreak"]
ARGS = [{}, {"city": "Paris"}, {"n": 3, "f": 0.5, "b": True, "z": None, "l": [1, "a"], "o": {"k": "v"}}, {"q": "ünï \"x\""}]
TOOL_SETS = [None, rg.TOOLS, [rg.SEARCH_TOOL, rg.NO_PARAMS_TOOL], []]


def conversation(r):
    def content():
        c = r.choice(TEXTS)
        x = r.random()
        return [{"type": "text", "text": c}] if x < 0.1 else None if x < 0.13 else c

    def call(i):
        a = r.choice(ARGS)
        return {
            "id": r.choice([f"call{i:05d}", f"c_{i}", "abcdefghi"]),
            "type": "function",
            "function": {"name": r.choice(["get_weather", "get_time", "search_docs"]),
                         "arguments": json.dumps(a, ensure_ascii=False) if r.random() < 0.3 else a},
        }

    msgs = []
    if r.random() < 0.5:
        msgs.append({"role": r.choice(["system", "system", "developer"]), "content": content()})
    turns = r.randint(1, 4)
    for i in range(turns):
        msgs.append({"role": "user", "content": content()})
        if i == turns - 1 and r.random() >= 0.4:
            continue
        m = {"role": "assistant", "content": content()}
        if r.random() < 0.4:
            m["reasoning_content"] = r.choice(TEXTS)
        msgs.append(m)
        if r.random() < 0.4:
            m["tool_calls"] = [call(j) for j in range(r.randint(1, 3))]
            for c in m["tool_calls"]:
                t = {"role": "tool", "content": r.choice(TEXTS)}
                if r.random() < 0.7:
                    t["tool_call_id"] = c["id"]
                if r.random() < 0.5:
                    t["name"] = c["function"]["name"]
                msgs.append(t)
            if r.random() < 0.5:
                msgs.append({"role": "assistant", "content": content()})
    ctx = {"messages": msgs, "tools": r.choice(TOOL_SETS), "documents": None, "add_generation_prompt": r.random() < 0.7,
           "bos_token": "<BOS>", "eos_token": "<EOS>"}
    if r.random() < 0.4:
        ctx["enable_thinking"] = r.random() < 0.5
    if r.random() < 0.2:
        ctx["reasoning_effort"] = r.choice(["low", "high"])
    return ctx


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    r = random.Random(seed)
    env = rg.make_env()
    names = sorted(n for n in os.listdir(rg.TEMPLATES_DIR) if n.endswith(".jinja"))
    contexts = [conversation(r) for _ in range(count)]
    cases = []
    for name in names:
        with open(os.path.join(rg.TEMPLATES_DIR, name), encoding="utf-8") as f:
            try:
                template = env.from_string(f.read())
            except Exception:
                continue  # compile failures are covered by the committed goldens
        for i, ctx in enumerate(contexts):
            cases.append({"template": name, "context": i, **rg.render_case(template, json.loads(json.dumps(ctx)))})
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"now": rg.FIXED_NOW.isoformat(), "contexts": contexts, "cases": cases}, f, ensure_ascii=False)
    print(f"{len(cases)} cases written to {out}")


if __name__ == "__main__":
    main()
