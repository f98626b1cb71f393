#!/usr/bin/env python3
"""Render every llama.cpp test chat template x scenario with Python Jinja2, set up the way
Hugging Face transformers sets it up for chat templates, and write the results as goldens.

Output: test/fixtures/template-goldens/_scenarios.json (the contexts, shared by all templates)
and one <template>.json per template: {"template": name, "cases": {scenario: {"output": str} |
{"error": {"type": cls, "message": str}}}}. The TypeScript parity test renders the same contexts
with toolwright's ChatTemplate.renderRaw and compares.

Usage: python3 scripts/render-goldens.py [templates_dir] [out_dir]

The engine snippets (_snippets.json) do not depend on the templates: they are written with the
default templates only. The templates-dev goldens (test/oracle/template-parity-dev.test.ts) come from

    python3 scripts/render-goldens.py ../shared/templates-dev test/fixtures/template-goldens-dev
"""
import json
import os
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TEMPLATES_DIR = os.path.join(ROOT, "deps/llama.cpp/models/templates")
TEMPLATES_DIR = DEFAULT_TEMPLATES_DIR
OUT_DIR = os.path.join(ROOT, "test/fixtures/template-goldens")

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


def make_env(mutable=False):
    env = (SandboxedEnvironment if mutable else ImmutableSandboxedEnvironment)(
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

# A tool with a richer schema: nested objects, arrays, enums, numbers, defaults, no description.
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_docs",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search terms"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                "score": {"type": "number"},
                "exact": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "filters": {
                    "type": "object",
                    "properties": {"lang": {"type": "string", "enum": ["en", "fr"]}, "year": {"type": ["integer", "null"]}},
                    "required": ["lang"],
                },
            },
            "required": ["query"],
        },
    },
}
NO_PARAMS_TOOL = {"type": "function", "function": {"name": "ping", "description": "Check the service."}}


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
    "rich_tools": base(
        [
            {"role": "system", "content": "Use tools when useful."},
            {"role": "user", "content": "Find recent docs about tokenizers."},
            {
                "role": "assistant",
                "content": "Let me search.",
                "tool_calls": [
                    call(
                        "call00001",
                        "search_docs",
                        {"query": "tokenizers", "limit": 5, "score": 0.5, "exact": False, "tags": ["nlp", "bpe"],
                         "filters": {"lang": "en", "year": None}},
                        False,
                    ),
                    call("call00002", "ping", {}, False),
                ],
            },
            {"role": "tool", "tool_call_id": "call00001", "name": "search_docs", "content": '{"results": [{"title": "BPE", "score": 0.9}]}'},
            {"role": "tool", "tool_call_id": "call00002", "name": "ping", "content": "pong"},
        ],
        tools=[SEARCH_TOOL, NO_PARAMS_TOOL],
    ),
    "history_with_tools": base(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "content": None, "tool_calls": [call("call00001", "get_weather", {"city": "Oslo"}, False)]},
            {"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": "rain"},
            {"role": "assistant", "content": "It rains in Oslo."},
            {"role": "user", "content": "And in Rome?"},
            {"role": "assistant", "content": "", "reasoning_content": "Call again.", "tool_calls": [call("call00002", "get_weather", {"city": "Rome"}, False)]},
            {"role": "tool", "tool_call_id": "call00002", "name": "get_weather", "content": "sun"},
            {"role": "assistant", "content": "Sunny in Rome.", "reasoning_content": "Report it."},
            {"role": "user", "content": "Thanks"},
        ],
        tools=TOOLS,
        enable_thinking=True,
    ),
    "thinking_disabled_tools": base(
        [
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [call("call00001", "get_weather", {"city": "Paris"}, False)]},
            {"role": "tool", "tool_call_id": "call00001", "name": "get_weather", "content": "sunny"},
        ],
        tools=TOOLS,
        enable_thinking=False,
    ),
    "think_tags_in_content": base(
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "<think>\nThe user greets.\n</think>\n\nHello!"},
            {"role": "user", "content": "Bye"},
        ]
    ),
    "last_assistant_reasoning": base(
        [
            {"role": "user", "content": "Compute 6*7."},
            {"role": "assistant", "content": "42", "reasoning_content": "6*7 is 42."},
        ],
        add_generation_prompt=False,
    ),
    "developer_and_multi_system": base(
        [
            {"role": "system", "content": "First rule."},
            {"role": "developer", "content": "Second rule."},
            {"role": "user", "content": "Go."},
        ]
    ),
    "empty_messages": base([]),
    "extra_kwargs": base(
        [{"role": "user", "content": "Plan a trip."}],
        reasoning_effort="high",
        builtin_tools=["browser", "python"],
        custom_instructions="Answer in French.",
        date_string="01 Feb 2025",
        tools_in_user_message=False,
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


# Small templates that pin down Python semantics the chat templates lean on (the gaps of a
# JavaScript Jinja): printing objects, filters on odd inputs, dict/list/str methods, scoping.
SNIPPET_CTX = {
    "d": {"b": 1, "a": [1, "x", None, True, 1.5], "n": {"k": "v"}},
    "l": [3, 1, 2],
    "objs": [{"name": "b", "n": 2}, {"name": "A", "n": 1}, {"n": 3}],
    "s": "  Hello, World  ",
    "u": "Zürich 東京 \u00a0\u200b'\"\n",
    "none": None,
    "f": 2.5,
    "msgs": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}],
}
SNIPPETS = [
    "{{ d }}|{{ l }}|{{ none }}|{{ f }}|{{ true }}|{{ (1, 'a') }}|{{ (1, 2)[1:] }}",
    "{{ d|string }}|{{ l|string }}|{{ d.n|string }}|{{ u|string }}|{{ [u] }}",
    "{{ l|min }}|{{ l|max }}|{{ objs|min(attribute='n') }}|{{ []|min }}|{{ ['b', 'A']|min }}",
    "{{ d.get('b') }}|{{ d.get('zz') }}|{{ d.get('zz', 'dflt') }}|{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
    "{{ d.keys()|list }}|{{ d.values()|list|length }}|{{ d|length }}|{{ d|list }}",
    "{% set x = l.append(4) %}",
    "{{ d.update({'c': 1}) }}",
    "{{ '{} and {name}'.format(1, name='n') }}|{{ '{0:>5}|{1:.2f}|{2!r}'.format('a', 2.345, 'q') }}",
    "{{ '%s-%d-%05.1f-%r'|format('a', 3, 2.25, 'q') }}|{{ '%(a)s'|format(a=1) }}|{{ 'x%sy' % 5 }}|{{ '%s %s' % ('a', 'b') }}",
    "{% set m = {1: 'one', 'k': 'v'} %}{{ m[1] }}|{{ m }}|{{ 1 in m }}|{{ m|tojson }}",
    "{{ missing|string }}|{{ missing|length }}|{{ missing|default('d') }}|{{ missing|trim }}|{{ missing|upper }}|{{ missing|list }}|{{ missing|join(',') }}",
    "{{ missing|tojson }}",
    "{{ missing.attr }}",
    "{{ none|selectattr('x')|list }}|{{ objs|selectattr('name')|map(attribute='n')|list }}|{{ objs|rejectattr('name', 'equalto', 'b')|list|length }}",
    "{{ objs|selectattr('name', 'defined')|map(attribute='name')|join(',') }}|{{ objs|map(attribute='name', default='?')|list }}",
    "{{ objs|sort(attribute='name')|list }}",
    "{{ objs|sort(attribute='n')|map(attribute='n')|list }}|{{ objs|sort(attribute='n', reverse=true)|first }}|{{ ['b', 'A', 'c']|sort }}|{{ ['b', 'A', 'c']|sort(case_sensitive=true) }}|{{ l|sort(reverse=true) }}",
    "{{ d|dictsort }}|{% for k, v in {'b': 1, 'A': 2}|dictsort %}{{ k }}{% endfor %}",
    "{{ d|tojson }}|{{ d|tojson(indent=2) }}|{{ u|tojson }}|{{ u|tojson(ensure_ascii=true) }}|{{ d|tojson(separators=(',', ':'), sort_keys=true) }}|{{ f|tojson }}|{{ (1, 2)|tojson }}",
    "{{ s.strip() }}|{{ s|trim }}|{{ s.lstrip() }}|{{ s.rstrip() }}|{{ 'xxaxx'.strip('x') }}|{{ s.split(',') }}|{{ s.split() }}|{{ 'a,b,c'.split(',', 1) }}|{{ 'a,b,c'.rsplit(',', 1) }}",
    "{{ 'Hello'.startswith('He') }}|{{ 'Hello'.endswith(('x', 'lo')) }}|{{ 'a-b'.replace('-', '+') }}|{{ 'hello world'.title() }}|{{ 'hello'.capitalize() }}|{{ 'ab'.upper() }}|{{ 'abc'.find('c') }}|{{ 'aXa'.count('a') }}",
    "{{ 'abc'[1:] }}|{{ 'abc'[::-1] }}|{{ l[-1] }}|{{ l[1:] }}|{{ l[::2] }}|{{ l[5] }}|{{ 'abc'[10] }}|{{ (l|list)[:-1] }}",
    "{{ 7 // 2 }}|{{ -7 // 2 }}|{{ -7 % 3 }}|{{ 7 / 2 }}|{{ 4 / 2 }}|{{ 2 ** 10 }}|{{ 0.1 + 0.2 }}|{{ 0.0000001 }}|{{ 10000000000000000.0 }}|{{ 3 * 'ab' }}|{{ [1] * 2 }}",
    "{{ 'a' ~ 1 ~ none ~ missing }}|{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ 1 + 2.0 }}|{{ true + 1 }}",
    "{{ 'x' + 1 }}",
    "{{ 1 + 'x' }}",
    "{{ 'a' in none }}",
    "{{ none|length }}",
    "{{ l < 'a' }}",
    "{{ 1 == 1.0 }}|{{ [1, 2] == [1, 2] }}|{{ {'a': 1} == {'a': 1} }}|{{ missing == missing }}|{{ none == missing }}|{{ 'a' != 'b' }}|{{ (1, 2) == [1, 2] }}",
    "{{ 1 is number }}|{{ true is number }}|{{ true is integer }}|{{ f is float }}|{{ d is mapping }}|{{ d is sequence }}|{{ 's' is sequence }}|{{ missing is sequence }}|{{ missing is iterable }}|{{ none is iterable }}|{{ l is iterable }}",
    "{{ 9 is divisibleby(3) }}|{{ 9 is divisibleby 2 }}|{{ 'a' is in 'abc' }}|{{ 3 is eq 3 }}|{{ 3 is gt 2 }}|{{ l is sameas l }}|{{ 1 + 4 is divisibleby(2) }}|{{ 2 is in l }}|{{ 5 is not in l }}|{{ 3 is equalto(3) }}|{{ 'b' is lt 'c' }}|{{ l|select('divisibleby', 3)|list }}|{{ 'x' if 3 is odd else 'y' }}|{{ d.n is sameas d.n }}",
    "{{ l is nosuchtest(1) }}",
    "{{ '\\d+\\s' }}|{{ 'tab\\there' }}|{{ 'nul\\0x' | length }}|{{ 'bell\\a' | length }}|{{ '\\U0001F600' }}|{{ '\\101\\x41\\u0041' }}|{{ {'k': {'v': '\\q'}} }}|a\\d{# \\z #}b",
    "{% if {0: 1, none: 2, 1.0: 3, '0': 4, true: 5} == {false: 1, none: 2, 1: 5, '0': 4} %}equal{% endif %}|{% set m = {1: 'a', 1.0: 'b', true: 'c'} %}{{ m }}|{{ m[1.0] }}|{{ (1, 2) in {(1, 2): 0} }}|{{ {(1, 2): 'x'}[(1, 2)] }}",
    "{{ {(1, 2): 'x'}|tojson }}",
    "{{ l|sort(attribute='name')|join(attribute='age') }}|{{ l|sort(attribute=0)|list }}|{{ l|truncate(9) }}|{{ 'a long sentence here'|truncate(9) }}|{{ 'a long sentence here'|truncate(9, true) }}",
    "{{ missing|indent(2) }}",
    "{{ missing|dictsort }}",
    "{{ 1.0 / 0 }}",
    "{{ 1 // 0 }}",
    "{{ 1.5 % 0 }}",
    "{{ l[:-missing] }}",
    "{{ 'abc'[5:] }}|{{ l[-10:] }}|{{ l[::-2] }}|{{ 'héllo'[1:3] }}",
    "{{ 'abc' is lower }}|{{ 'ABC' is upper }}|{{ 3 is odd }}|{{ 4 is even }}|{{ none is none }}|{{ missing is undefined }}|{{ d.b is defined }}|{{ d.zz is defined }}|{{ 'x' is string }}|{{ true is boolean }}|{{ raise_exception is callable }}",
    "{% set x = 0 %}{% for i in range(3) %}{{ x }}{% set x = x + 1 %}{{ x }}|{% endfor %}{{ x }}",
    "{% set ns = namespace(x=0, items=[]) %}{% for i in range(3) %}{% set ns.x = ns.x + i %}{% endfor %}{{ ns.x }}|{{ ns }}",
    "{% for i in l if i > 1 %}{{ loop.index }}/{{ loop.length }}:{{ i }}{{ ',' if not loop.last }}{% else %}empty{% endfor %}|{% for i in [] %}x{% else %}empty{% endfor %}",
    "{% for i in 'abc' %}{{ loop.cycle('o', 'e') }}{{ loop.previtem|default('^') }}{{ loop.nextitem|default('$') }}{{ loop.revindex0 }}{% endfor %}",
    "{% for a, b in [[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}|{% for k in d %}{{ k }}{% endfor %}|{% for c in 'hi' %}{{ c }}.{% endfor %}",
    "{% for a, b in [[1]] %}{% endfor %}",
    "{% macro m(a, b=2) %}{{ a }}{{ b }}{{ kwargs }}{{ varargs }}{% endmacro %}{{ m(1) }}|{{ m(1, 3) }}|{{ m(1, c=4) }}|{{ m(1, 2, 3) }}|{{ m }}",
    "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, c=3) }}",
    "{% set y = 5 %}{% macro m() %}{{ y }}{{ z }}{% endmacro %}{% set y = 6 %}{% for z in [1] %}{{ m() }}{% endfor %}",
    "{% macro outer() %}[{{ caller() }}]{% endmacro %}{% call outer() %}inside{% endcall %}|{% filter upper %}shout {{ 'it' }}{% endfilter %}",
    "{% set t %}block {{ 1 + 1 }}{% endset %}{{ t }}|{% set a, b = 1, 2 %}{{ a }}{{ b }}|{% set c = 'x' if false %}{{ c }}|{{ c is defined }}",
    "{{ 'x'|safe + '<b>' }}|{{ '<b>' + 'x'|safe }}|{{ ('x'|safe) ~ '<b>' }}|{{ '<a>'|e }}|{{ ('x'|safe + \"'\")|length }}|{{ ('x'|safe + \"'\") }}",
    "{{ '  a\n\nb\n c'|indent }}|{{ 'a\nb'|indent(2, true) }}|{{ 'a\n\nb'|indent(width='> ', blank=true) }}|{{ 'x'|center(5) }}|{{ 'a b  c'|wordcount }}",
    "{{ '42'|int }}|{{ '4.7'|int }}|{{ 'x'|int(7) }}|{{ 3.9|int }}|{{ '0x1A'|int(0, 16) }}|{{ '2.5'|float }}|{{ 'x'|float }}|{{ 2|float }}|{{ 2.675|round(2) }}|{{ 2.5|round }}|{{ 3.5|round }}|{{ -2.5|round }}|{{ 1.23|round(1, 'floor') }}|{{ -3|abs }}",
    "{{ [1, 2, 2, 'A', 'a']|unique|list }}|{{ l|reverse|list }}|{{ 'abc'|reverse }}|{{ l|first }}|{{ l|last }}|{{ []|first }}|{{ l|sum }}|{{ objs|sum(attribute='n') }}|{{ l|join(', ') }}|{{ objs|join('/', attribute='n') }}",
    "{{ range(3) }}|{{ range(1, 7, 2)|list }}|{{ range(3)|length }}|{{ dict(a=1, b=[2]) }}|{{ 'a b'.split(' ')|map('upper')|list }}|{{ l|map('string')|join }}|{{ l|select('odd')|list }}|{{ l|reject('even')|list }}",
    "{{ msgs|selectattr('role', 'equalto', 'user')|list|length }}|{{ msgs[1].content is none }}|{{ msgs[1].content }}|{{ msgs|map(attribute='role')|join(',') }}|{{ msgs|last }}",
    "{{ u }}|{{ u|upper }}|{{ u|length }}|{{ u[7] }}|{{ u.split() }}",
    "{{ raise_exception('custom failure: ' ~ d.b) }}",
    "{{ strftime_now('%Y-%m-%d %H:%M:%S %a %A %b %B %d %j %p %I') }}",
    "{{ d|items|list }}|{{ missing|items|list }}",
    "{{ 'x'|items|list }}",
    "{{ (d|items)|list|length }}",
    "{{ [1, 2]|tojson }}|{{ {'a': [1, {'b': none}], 'e': {}, 'f': []}|tojson(indent=4) }}|{{ {'z': 1, 'a': 2}|tojson(sort_keys=true) }}|{{ {'q': 'x\ty\u0001'}|tojson }}",
    "{{ 'a' if l else 'b' }}|{{ l and 'yes' }}|{{ [] or 'empty' }}|{{ none or 0 or '' }}|{{ not l }}|{{ 'b' if 0 }}|",
    "{{ l.index(2) }}|{{ l.count(3) }}|{{ d.copy() == d }}|{{ 'a.b.c'.split('.')[-1] }}|{{ '1,2'.split(',')|map('int')|sum }}",
    "{% for i in range(5) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}",
    "{{ d.b.c }}",
    "{{ none.x }}|{{ none[0] }}|{{ d['zz'] }}|{{ l['x'] }}",
    "{{ none.x.y }}",
    "{{ missing() }}",
    "{{ l.pop() }}",
    "{{ l|nosuchfilter }}",
    "{% if l is nosuchtest %}{% endif %}",
    "{% if false %}{{ l|nosuchfilter }}{% endif %}ok|{{ l|nosuchfilter if false }}",
    "{% if l %}{{ l|nosuchfilter }}{% endif %}",
    "{% if true %}{% for i in l %}{{ i|nosuchfilter }}{% endfor %}{% endif %}",
    "{{ l|map('nosuchfilter')|list }}",
    "{{ l|select('nosuchtest')|list }}",
]

SNIPPETS_MUTABLE = [
    "{% set x = l.append(4) %}{{ l }}|{% set y = l.pop(0) %}{{ y }}{{ l }}|{% set z = d.update({'c': 1}) %}{{ d|length }}",
]


def render_case(template, ctx):
    try:
        return {"output": template.render(**ctx)}
    except Exception as e:  # record every failure, template-raised or engine-raised
        return {"error": {"type": type(e).__name__, "message": str(e)}}


def main():
    global TEMPLATES_DIR, OUT_DIR
    if len(sys.argv) > 1:
        TEMPLATES_DIR = sys.argv[1]
    if len(sys.argv) > 2:
        OUT_DIR = sys.argv[2]
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
    if os.path.abspath(TEMPLATES_DIR) == os.path.abspath(DEFAULT_TEMPLATES_DIR):
        write_snippets(env)


def write_snippets(env):
    snippets = []
    mutable_env = make_env(mutable=True)
    for source, mutable in [(x, False) for x in SNIPPETS] + [(x, True) for x in SNIPPETS_MUTABLE]:
        try:
            case = render_case((mutable_env if mutable else env).from_string(source), json.loads(json.dumps(SNIPPET_CTX)))
        except Exception as e:
            case = {"error": {"type": type(e).__name__, "message": str(e)}}
        snippets.append({"source": source, **({"allowMutation": True} if mutable else {}), **case})
    with open(os.path.join(OUT_DIR, "_snippets.json"), "w", encoding="utf-8") as f:
        json.dump({"now": FIXED_NOW.isoformat(), "context": SNIPPET_CTX, "snippets": snippets}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
