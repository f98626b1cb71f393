// analysis-oracle: prints llama.cpp's differential template analysis as JSON, so that
// toolwright's TypeScript analyser (src/analysis/) can be checked against it field by field.
//
//   analysis-oracle <template.jinja>...            one JSON object per line, one line per template
//   analysis-oracle --time <template.jinja>...     per template: {"file", "parse_ms", "analysis_ms"}, the
//                                                  reference column of scripts/bench/analysis.mjs
//   analysis-oracle --render <template.jinja> <params.json>
//                                                  renders the template the way the analyser does
//                                                  (params: {messages, tools?, add_generation_prompt?,
//                                                  enable_thinking?}) and prints {"output": ...};
//                                                  a JSON array of params prints an array of outputs
//                                                  (null where the template raised)
//
// Only scripts/record-analysis-oracle.mjs runs it. Built from scripts/oracle/CMakeLists.txt.

#include "chat-auto-parser-helpers.h"
#include "chat-auto-parser.h"
#include "chat.h"
#include "json.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using json = common_json;

namespace {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot open " + path);
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The analyser sees the template after llama.cpp's load-time source patches, so go through the
// same entry point a server would use (no model: empty BOS/EOS, which is what llama.cpp's tests use).
std::string loaded_source(const std::string& raw) {
  auto templates = common_chat_templates_ptr(common_chat_templates_init(nullptr, raw, "", ""));
  return common_chat_templates_source(templates.get());
}

template <typename T>
std::string enum_name(T value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

json string_list(const std::vector<std::string>& values) {
  json out = json::array();
  for (const auto& v : values) {
    out.push_back(v);
  }
  return out;
}

json caps_json(const jinja::caps& caps) {
  json out = json::object();
  for (const auto& [name, enabled] : caps.to_map()) {
    out[name] = enabled;
  }
  return out;
}

json analysis_json(const autoparser::autoparser& a) {
  const auto& f = a.tools.format;
  const auto& fn = a.tools.function;
  const auto& ar = a.tools.arguments;
  const auto& id = a.tools.call_id;

  json format = json::object();
  format["mode"] = enum_name(f.mode);
  format["section_start"] = f.section_start;
  format["section_end"] = f.section_end;
  format["per_call_start"] = f.per_call_start;
  format["per_call_end"] = f.per_call_end;
  format["fun_name_is_key"] = f.fun_name_is_key;
  format["tools_array_wrapped"] = f.tools_array_wrapped;
  format["openai_wrapper_trigger"] = f.openai_wrapper_trigger;
  format["function_field"] = f.function_field;
  format["name_field"] = f.name_field;
  format["args_field"] = f.args_field;
  format["id_field"] = f.id_field;
  format["gen_id_field"] = f.gen_id_field;
  format["parameter_order"] = string_list(f.parameter_order);

  json function = json::object();
  function["name_prefix"] = fn.name_prefix;
  function["name_suffix"] = fn.name_suffix;
  function["args_separator"] = fn.args_separator;
  function["close"] = fn.close;

  json arguments = json::object();
  arguments["start"] = ar.start;
  arguments["end"] = ar.end;
  arguments["name_prefix"] = ar.name_prefix;
  arguments["name_suffix"] = ar.name_suffix;
  arguments["value_prefix"] = ar.value_prefix;
  arguments["value_suffix"] = ar.value_suffix;
  arguments["separator"] = ar.separator;
  arguments["tolerate_intertag_whitespace"] = ar.tolerate_intertag_whitespace;

  json call_id = json::object();
  call_id["pos"] = enum_name(id.pos);
  call_id["prefix"] = id.prefix;
  call_id["suffix"] = id.suffix;

  json tools = json::object();
  tools["format"] = format;
  tools["function"] = function;
  tools["arguments"] = arguments;
  tools["call_id"] = call_id;

  json reasoning = json::object();
  reasoning["mode"] = enum_name(a.reasoning.mode);
  reasoning["start"] = a.reasoning.start;
  reasoning["end"] = a.reasoning.end;

  json content = json::object();
  content["mode"] = enum_name(a.content.mode);
  content["start"] = a.content.start;
  content["end"] = a.content.end;
  content["requires_nonnull_content"] = a.content.requires_nonnull_content;

  json out = json::object();
  out["reasoning"] = reasoning;
  out["content"] = content;
  out["tools"] = tools;
  out["user_start"] = a.user_start;
  out["assistant_start"] = a.assistant_start;
  out["preserved_tokens"] = string_list(a.preserved_tokens);
  out["additional_stops"] = string_list(a.additional_stops);
  return out;
}

// A request with one tool and a user turn, for what the generator derives from the analysis.
autoparser::generation_params sample_request() {
  autoparser::generation_params params;
  params.messages = json::array();
  params.messages.push_back({{"role", "user"}, {"content", "What is the weather in Paris?"}});
  json parameters = {
      {"type", "object"},
      {"properties", {{"city", {{"type", "string"}}}}},
      {"required", json::array({"city"})},
  };
  params.tools = json::array();
  params.tools.push_back({
      {"type", "function"},
      {"function", {{"name", "get_weather"}, {"description", "Weather by city"}, {"parameters", parameters}}},
  });
  params.add_generation_prompt = true;
  return params;
}

json generator_json(const common_chat_template& tmpl, const autoparser::autoparser& a) {
  auto params = sample_request();
  auto data = autoparser::peg_generator::generate_parser(tmpl, params, a);
  json triggers = json::array();
  for (const auto& t : data.grammar_triggers) {
    triggers.push_back({{"type", (int)t.type}, {"value", t.value}});
  }
  json out = json::object();
  out["grammar_lazy"] = data.grammar_lazy;
  out["has_grammar"] = !data.grammar.empty();
  out["grammar_triggers"] = triggers;
  out["preserved_tokens"] = string_list(data.preserved_tokens);
  out["supports_thinking"] = a.reasoning.mode != autoparser::reasoning_mode::NONE;
  out["generation_prompt"] = data.generation_prompt;
  return out;
}

bool uses_specialized_handler(const common_chat_template& tmpl) {
  auto params = sample_request();
  return common_chat_try_specialized_template(tmpl, tmpl.source(), params).has_value();
}

json describe_template(const std::string& path) {
  json out = json::object();
  out["file"] = path;
  std::string source;
  try {
    source = loaded_source(read_text_file(path));
  } catch (const std::exception& e) {
    out["error"] = std::string("load: ") + e.what();
    return out;
  }
  common_chat_template tmpl(source, "", "");
  out["caps"] = caps_json(tmpl.original_caps());

  try {
    out["specialized"] = uses_specialized_handler(tmpl);
  } catch (const std::exception& e) {
    out["specialized_error"] = e.what();
  }

  autoparser::autoparser analysis;
  try {
    analysis.analyze_template(tmpl);
  } catch (const std::exception& e) {
    out["error"] = std::string("analysis: ") + e.what();
    return out;
  }
  out["analysis"] = analysis_json(analysis);

  try {
    out["generator"] = generator_json(tmpl, analysis);
  } catch (const std::exception& e) {
    out["generator_error"] = e.what();
  }
  return out;
}

// What the analyser's renderer returns when the template raises.
const std::string RENDER_FAILED = "#**ERROR**#";

json render_one(const common_chat_template& tmpl, const json& request) {
  template_params params;
  params.messages = request.at("messages");
  params.tools = request.value("tools", json());
  params.add_generation_prompt = request.value("add_generation_prompt", false);
  params.enable_thinking = request.value("enable_thinking", true);
  std::string output = autoparser::apply_template(tmpl, params);
  return output == RENDER_FAILED ? json() : json(output);
}

int render(const std::string& template_path, const std::string& params_path) {
  common_chat_template tmpl(loaded_source(read_text_file(template_path)), "", "");
  json request = json::parse(read_text_file(params_path));
  json out = json::object();
  if (request.is_array()) {
    json outputs = json::array();
    for (size_t i = 0; i < request.size(); i++) {
      outputs.push_back(render_one(tmpl, request.at(i)));
    }
    out["outputs"] = outputs;
  } else {
    out["output"] = render_one(tmpl, request);
  }
  std::cout << out.dump_safe() << "\n";
  return 0;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Times what a server pays per template: parsing it (with its capability probes) and analysing it.
int time_templates(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    std::string source = loaded_source(read_text_file(path));
    auto t0 = std::chrono::steady_clock::now();
    common_chat_template tmpl(source, "", "");
    double parse_ms = ms_since(t0);
    auto t1 = std::chrono::steady_clock::now();
    autoparser::autoparser analysis;
    json out = json::object();
    out["file"] = path;
    out["parse_ms"] = parse_ms;
    try {
      analysis.analyze_template(tmpl);
      out["analysis_ms"] = ms_since(t1);
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    std::cout << out.dump_safe() << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << "usage: analysis-oracle <template.jinja>... | --render <template.jinja> <params.json>\n";
    return 2;
  }
  try {
    if (args[0] == "--render") {
      if (args.size() != 3) {
        std::cerr << "--render needs a template path and a params JSON path\n";
        return 2;
      }
      return render(args[1], args[2]);
    }
    if (args[0] == "--time") {
      return time_templates(std::vector<std::string>(args.begin() + 1, args.end()));
    }
    for (const auto& path : args) {
      std::cout << describe_template(path).dump_safe() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "analysis-oracle: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
