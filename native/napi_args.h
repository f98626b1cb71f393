// Checked access to N-API arguments: every value from JS is type- and range-checked here,
// and a bad one becomes a TypeError/RangeError naming the method, the argument and what
// was given. Nothing in the addon calls As<>() on an unchecked value.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace toolwright::args {

// "a string", "undefined", "an array", ... for error messages.
std::string Describe(const Napi::Value& value);

[[noreturn]] void ThrowType(Napi::Env env, const std::string& where, const std::string& what,
                            const Napi::Value& got);
[[noreturn]] void ThrowRange(Napi::Env env, const std::string& where, const std::string& what);

std::string String(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name);
// An object argument; undefined/null give an empty object.
Napi::Object OptionalObject(const Napi::CallbackInfo& info, size_t index, const char* method,
                            const char* name);
Napi::Object Object(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name);
// An integer argument in [min, max].
int64_t Integer(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name,
                int64_t min, int64_t max);
// A function argument; undefined/null give an empty Function.
Napi::Function OptionalFunction(const Napi::CallbackInfo& info, size_t index, const char* method,
                                const char* name);

// Options: a missing or undefined key gives the default.
bool OptBool(const Napi::Object& options, const char* key, bool fallback, const char* method);
double OptNumber(const Napi::Object& options, const char* key, double fallback, double min, double max,
                 const char* method);
int64_t OptInt(const Napi::Object& options, const char* key, int64_t fallback, int64_t min, int64_t max,
               const char* method);
std::string OptString(const Napi::Object& options, const char* key, const std::string& fallback,
                      const char* method);
std::vector<std::string> OptStringArray(const Napi::Object& options, const char* key, const char* method);

// Token ids from an Int32Array, a number or an array of numbers, each in [0, n_vocab).
std::vector<int32_t> Tokens(Napi::Env env, const Napi::Value& value, int32_t n_vocab, const char* method,
                            const char* name);

}  // namespace toolwright::args
