#include "napi_args.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace toolwright::args {

std::string Describe(const Napi::Value& value) {
  switch (value.Type()) {
    case napi_undefined:
      return "undefined";
    case napi_null:
      return "null";
    case napi_boolean:
      return "a boolean";
    case napi_number: {
      std::ostringstream out;
      out << "the number " << value.As<Napi::Number>().DoubleValue();
      return out.str();
    }
    case napi_string:
      return "a string";
    case napi_symbol:
      return "a symbol";
    case napi_function:
      return "a function";
    case napi_external:
      return "an external";
    case napi_bigint:
      return "a bigint";
    case napi_object:
      if (value.IsArray()) return "an array";
      if (value.IsTypedArray()) return "a typed array";
      if (value.IsBuffer()) return "a Buffer";
      return "an object";
  }
  return "an unknown value";
}

void ThrowType(Napi::Env env, const std::string& where, const std::string& what, const Napi::Value& got) {
  throw Napi::TypeError::New(env, where + ": " + what + ", got " + Describe(got));
}

void ThrowRange(Napi::Env env, const std::string& where, const std::string& what) {
  throw Napi::RangeError::New(env, where + ": " + what);
}

static Napi::Value Arg(const Napi::CallbackInfo& info, size_t index) {
  return index < info.Length() ? info[index] : info.Env().Undefined();
}

std::string String(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name) {
  Napi::Value v = Arg(info, index);
  if (!v.IsString()) ThrowType(info.Env(), method, std::string(name) + " must be a string", v);
  return v.As<Napi::String>().Utf8Value();
}

Napi::Object OptionalObject(const Napi::CallbackInfo& info, size_t index, const char* method,
                            const char* name) {
  Napi::Value v = Arg(info, index);
  if (v.IsUndefined() || v.IsNull()) return Napi::Object::New(info.Env());
  if (!v.IsObject() || v.IsArray() || v.IsFunction()) {
    ThrowType(info.Env(), method, std::string(name) + " must be an object", v);
  }
  return v.As<Napi::Object>();
}

Napi::Object Object(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name) {
  Napi::Value v = Arg(info, index);
  if (!v.IsObject()) ThrowType(info.Env(), method, std::string(name) + " must be an object", v);
  return v.As<Napi::Object>();
}

static bool IsInteger(double d) { return std::isfinite(d) && std::floor(d) == d; }

int64_t Integer(const Napi::CallbackInfo& info, size_t index, const char* method, const char* name,
                int64_t min, int64_t max) {
  Napi::Value v = Arg(info, index);
  if (!v.IsNumber()) ThrowType(info.Env(), method, std::string(name) + " must be an integer", v);
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!IsInteger(d) || d < static_cast<double>(min) || d > static_cast<double>(max)) {
    ThrowRange(info.Env(), method,
               std::string(name) + " must be an integer in [" + std::to_string(min) + ", " +
                   std::to_string(max) + "], got " + Describe(v));
  }
  return static_cast<int64_t>(d);
}

Napi::Function OptionalFunction(const Napi::CallbackInfo& info, size_t index, const char* method,
                                const char* name) {
  Napi::Value v = Arg(info, index);
  if (v.IsUndefined() || v.IsNull()) return Napi::Function();
  if (!v.IsFunction()) ThrowType(info.Env(), method, std::string(name) + " must be a function", v);
  return v.As<Napi::Function>();
}

static Napi::Value Option(const Napi::Object& options, const char* key) {
  return options.Has(key) ? options.Get(key) : options.Env().Undefined();
}

bool OptBool(const Napi::Object& options, const char* key, bool fallback, const char* method) {
  Napi::Value v = Option(options, key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsBoolean())
    ThrowType(options.Env(), method, std::string("option ") + key + " must be a boolean", v);
  return v.As<Napi::Boolean>().Value();
}

double OptNumber(const Napi::Object& options, const char* key, double fallback, double min, double max,
                 const char* method) {
  Napi::Value v = Option(options, key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber()) ThrowType(options.Env(), method, std::string("option ") + key + " must be a number", v);
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= min && d <= max)) {
    ThrowRange(options.Env(), method,
               std::string("option ") + key + " must be in [" + std::to_string(min) + ", " +
                   std::to_string(max) + "], got " + Describe(v));
  }
  return d;
}

int64_t OptInt(const Napi::Object& options, const char* key, int64_t fallback, int64_t min, int64_t max,
               const char* method) {
  Napi::Value v = Option(options, key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber())
    ThrowType(options.Env(), method, std::string("option ") + key + " must be an integer", v);
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!IsInteger(d) || d < static_cast<double>(min) || d > static_cast<double>(max)) {
    ThrowRange(options.Env(), method,
               std::string("option ") + key + " must be an integer in [" + std::to_string(min) + ", " +
                   std::to_string(max) + "], got " + Describe(v));
  }
  return static_cast<int64_t>(d);
}

std::string OptString(const Napi::Object& options, const char* key, const std::string& fallback,
                      const char* method) {
  Napi::Value v = Option(options, key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsString()) ThrowType(options.Env(), method, std::string("option ") + key + " must be a string", v);
  return v.As<Napi::String>().Utf8Value();
}

std::vector<std::string> OptStringArray(const Napi::Object& options, const char* key, const char* method) {
  std::vector<std::string> out;
  Napi::Value v = Option(options, key);
  if (v.IsUndefined()) return out;
  if (!v.IsArray())
    ThrowType(options.Env(), method, std::string("option ") + key + " must be an array of strings", v);
  Napi::Array array = v.As<Napi::Array>();
  out.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); i++) {
    Napi::Value item = array.Get(i);
    if (!item.IsString()) {
      ThrowType(options.Env(), method,
                std::string("option ") + key + "[" + std::to_string(i) + "] must be a string", item);
    }
    out.push_back(item.As<Napi::String>().Utf8Value());
  }
  return out;
}

std::vector<int32_t> Tokens(Napi::Env env, const Napi::Value& value, int32_t n_vocab, const char* method,
                            const char* name) {
  std::vector<int32_t> out;
  auto check = [&](double d, size_t i) {
    if (!IsInteger(d) || d < 0 || d >= n_vocab) {
      ThrowRange(env, method,
                 std::string(name) + "[" + std::to_string(i) + "] is not a token id of this model (" +
                     (std::isfinite(d) ? std::to_string(static_cast<int64_t>(d)) : std::string("NaN")) +
                     ", vocabulary size " + std::to_string(n_vocab) + ")");
    }
    return static_cast<int32_t>(d);
  };
  if (value.IsNumber()) {
    out.push_back(check(value.As<Napi::Number>().DoubleValue(), 0));
    return out;
  }
  if (value.IsTypedArray()) {
    Napi::TypedArray typed = value.As<Napi::TypedArray>();
    if (typed.TypedArrayType() != napi_int32_array && typed.TypedArrayType() != napi_uint32_array) {
      ThrowType(env, method,
                std::string(name) + " must be an Int32Array, a Uint32Array or an array of token ids", value);
    }
    const size_t n = typed.ElementLength();
    out.resize(n);
    const uint8_t* base = static_cast<const uint8_t*>(typed.ArrayBuffer().Data()) + typed.ByteOffset();
    const bool is_unsigned = typed.TypedArrayType() == napi_uint32_array;
    for (size_t i = 0; i < n; i++) {
      int64_t id = 0;
      if (is_unsigned) {
        uint32_t u;
        std::memcpy(&u, base + i * 4, 4);
        id = u;
      } else {
        int32_t s;
        std::memcpy(&s, base + i * 4, 4);
        id = s;
      }
      out[i] = check(static_cast<double>(id), i);
    }
    return out;
  }
  if (value.IsArray()) {
    Napi::Array array = value.As<Napi::Array>();
    out.reserve(array.Length());
    for (uint32_t i = 0; i < array.Length(); i++) {
      Napi::Value item = array.Get(i);
      if (!item.IsNumber()) {
        ThrowType(env, method, std::string(name) + "[" + std::to_string(i) + "] must be a token id", item);
      }
      out.push_back(check(item.As<Napi::Number>().DoubleValue(), i));
    }
    return out;
  }
  ThrowType(env, method, std::string(name) + " must be an Int32Array, a Uint32Array or an array of token ids",
            value);
}

}  // namespace toolwright::args
