#!/usr/bin/env python3
"""Render every llama.cpp test chat template x scenario with Python Jinja2, set up the way
Hugging Face transformers sets it up for chat templates, and write the results as goldens.

Output: test/fixtures/template-goldens/_scenarios.json (the contexts, shared by all templates)
and one <template>.json per template: {"template": name, "cases": {scenario: {"output": str} |
{"error": {"type": cls, "message": str}}}}. The TypeScript parity test renders the same contexts
with toolwright's ChatTemplate.renderRaw and compares.

Usage: python3 scripts/render-goldens.py [templates_dir] [out_dir]
"""
import json
import os
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATES_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "deps/llama.cpp/models/templates")
OUT_DIR = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "test/fixtures/template-goldens")

# The fixed clock the goldens use; the TS test injects the same local time.
FIXED_NOW = datetime(2025, 1, 15, 10, 30, 0)


class AssistantTracker(Extension):
    """transformers' {% generation %} block: renders its body; index tracking is irrelevant here."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers overrides Jinja's tojson (which HTML-escapes) with plain json.dumps.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def from_json(s):
    # Not in transformers: llama.cpp's templates for DeepSeek V3.2/V4 use this filter, so the
    # goldens (and toolwright) provide it to make those templates renderable at all.
    return json.loads(s)


def strftime_now(fmt):
    return FIXED_NOW.strftime(fmt)


def make_env():
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[AssistantTracker, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.filters["from_json"] = from_json
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


# ---------------------------------------------------------------------------------------------
# Scenarios. Contexts are exactly what transformers' apply_chat_template passes: tools and
# documents are None when absent; bos/eos tokens are given; extra kwargs are merged in.

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
TIME_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the local time in a timezone.",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    },
}
TOOLS = [WEATHER_TOOL, TIME_TOOL]


def call(call_id, name, args, string_args):
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False) if string_args else args},
    }


def base(messages, **extra):
    ctx = {
        "messages": messages,
        "tools": None,
        "documents": None,
        "add_generation_prompt": True,
        "bos_token": "<BOS>",
        "eos_token": "<EOS>",
    }
    ctx.update(extra)
    return ctx


def round_trip(string_args):
    return base(
        [
            {"role": "user", "content": "What is the weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [call("call00001", "get_weather", {"city": "Paris", "unit": "celsius"}, string_args)],
            },
            {"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": '{"temperature": 21}'},
            {"role": "assistant", "content": "It is 21 degrees in Paris."},
            {"role": "user", "content": "Thanks!"},
        ],
        tools=TOOLS,
    )


def parallel(string_args):
    return base(
        [
            {"role": "user", "content": "Weather in Paris and time in Tokyo?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    call("call00001", "get_weather", {"city": "Paris"}, string_args),
                    call("call00002", "get_time", {"timezone": "Asia/Tokyo"}, string_args),
                ],
            },
            {"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": "sunny"},
            {"role": "tool", "tool_call_id": "call00002", "name": "get_time", "content": "18:00"},
            {"role": "assistant", "content": "Sunny in Paris; 18:00 in Tokyo."},
        ],
        tools=TOOLS,
        add_generation_prompt=False,
    )


SCENARIOS = {
    "user": base([{"role": "user", "content": "Hello!"}]),
    "system": base([
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Hello!"},
    ]),
    "multi_turn": base(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello! How can I help?"},
            {"role": "user", "content": "Tell me a joke."},
        ]
    ),
    "assistant_last": base(
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello there."},
        ],
        add_generation_prompt=False,
    ),
    "tools_offered": base(
        [
            {"role": "system", "content": "You can call tools."},
            {"role": "user", "content": "What is the weather in Paris?"},
        ],
        tools=TOOLS,
    ),
    "tool_round_trip": round_trip(False),
    "tool_round_trip_string_args": round_trip(True),
    "parallel_calls": parallel(False),
    "parallel_calls_string_args": parallel(True),
    "reasoning": base(
        [
            {"role": "user", "content": "What is 2+2?"},
            {"role": "assistant", "content": "4", "reasoning_content": "Simple arithmetic: 2+2=4."},
            {"role": "user", "content": "And 3+3?"},
        ]
    ),
    "reasoning_with_tools": base(
        [
            {"role": "user", "content": "What is the weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "reasoning_content": "I should call get_weather.",
                "tool_calls": [call("call00001", "get_weather", {"city": "Paris"}, False)],
            },
            {"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": "sunny"},
        ],
        tools=TOOLS,
    ),
    "thinking_disabled": base([{"role": "user", "content": "Hello!"}], enable_thinking=False),
    "thinking_enabled": base([{"role": "user", "content": "Hello!"}], enable_thinking=True),
    "typed_content": base(
        [
            {"role": "system", "content": [{"type": "text", "text": "You are helpful."}]},
            {"role": "user", "content": [{"type": "text", "text": "Describe "}, {"type": "text", "text": "Paris."}]},
        ]
    ),
    "unicode": base(
        [
            {"role": "user", "content": "Météo à Zürich? 東京 \"quoted\" 'single' \\ back\ttab"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call("call00001", "get_weather", {"city": "Zürich", "note": "ünï \"q\" 東京"}, False)],
            },
            {"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": "☀ 21°C"},
        ],
        tools=TOOLS,
    ),
}


def render_case(template, ctx):
    try:
        return {"output": template.render(**ctx)}
    except Exception as e:  # record every failure, template-raised or engine-raised
        return {"error": {"type": type(e).__name__, "message": str(e)}}


def main():
    env = make_env()
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, "_scenarios.json"), "w", encoding="utf-8") as f:
        json.dump({"now": FIXED_NOW.isoformat(), "scenarios": SCENARIOS}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    names = sorted(n for n in os.listdir(TEMPLATES_DIR) if n.endswith(".jinja"))
    errors = 0
    for name in names:
        with open(os.path.join(TEMPLATES_DIR, name), encoding="utf-8") as f:
            source = f.read()
        cases = {}
        try:
            template = env.from_string(source)
        except Exception as e:
            err = {"error": {"type": type(e).__name__, "message": str(e)}}
            cases = {scenario: err for scenario in SCENARIOS}
        else:
            for scenario, ctx in SCENARIOS.items():
                cases[scenario] = render_case(template, ctx)
        errors += sum(1 for c in cases.values() if "error" in c)
        stem = name[: -len(".jinja")]
        with open(os.path.join(OUT_DIR, stem + ".json"), "w", encoding="utf-8") as f:
            json.dump({"template": name, "cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
    total = len(names) * len(SCENARIOS)
    print(f"{len(names)} templates x {len(SCENARIOS)} scenarios = {total} cases, {errors} raise")


if __name__ == "__main__":
    main()
