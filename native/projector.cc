#include "projector.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "addon_data.h"
#include "error_codes.h"
#include "log_capture.h"
#include "model_worker.h"
#include "mtmd-helper.h"
#include "napi_args.h"
#include "promise_worker.h"

namespace toolwright {
namespace {

const napi_type_tag kProjectorTag = {0x7d2e4b19c0a3f856ULL, 0x1b9e6c3d5a7f2048ULL};
const napi_type_tag kMediaPromptTag = {0x3a6f0d8e2c4b9171ULL, 0x94c1e7b05d2a3f68ULL};

struct ProjectorLoadOptions {
  std::string path;
  int32_t threads = 4;
  bool use_gpu = true;
};

class LoadProjectorWorker : public ModelWorker<ProjectorLoadOptions> {
 public:
  LoadProjectorWorker(Napi::Env env, Napi::Object owner, ModelPtr model, ProjectorLoadOptions options)
      : ModelWorker(env, "toolwright.loadProjector", owner, std::move(model), std::move(options)) {}

 protected:
  void Run() override {
    InstallLogHandler();
    mtmd_context_params params = mtmd_context_params_default();
    params.use_gpu = options_.use_gpu;
    params.n_threads = options_.threads;
    params.print_timings = false;
    params.warmup = false;
    auto state = std::make_shared<ProjectorState>();
    state->model = model_;
    state->path = options_.path;
    {
      ScopedLogCapture capture;
      state->ctx = mtmd_init_from_file(options_.path.c_str(), model_->model, params);
      if (state->ctx == nullptr) {
        const std::string reason = capture.Reason();
        Fail(codes::kProjectorFailed,
             "Cannot load the projector \"" + options_.path + "\" for \"" + model_->path + "\": " +
                 (reason.empty() ? "llama.cpp gave no reason" : reason) + " (mtmd_init_from_file failed)");
        return;
      }
    }
    state->vision = mtmd_support_vision(state->ctx);
    state->audio = mtmd_support_audio(state->ctx);
    // M-RoPE models (Qwen2-VL and kin) place an image on a 2-D grid of positions, which the
    // scheduler's one-position-per-token cache does not model yet.
    if (mtmd_decode_use_mrope(state->ctx)) {
      Fail(codes::kProjectorFailed, "Cannot use the projector \"" + options_.path +
                                        "\": its model places images with M-RoPE positions, which toolwright "
                                        "does not support yet");
      return;
    }
    state_ = std::move(state);
  }
  Napi::Value Result(Napi::Env env) override { return Projector::NewInstance(env, std::move(state_)); }

 private:
  ProjectorPtr state_;
};

// A placeholder id for position `i` of the image with content id `id`: negative, and the same for
// the same image at the same place, so the prefix cache can match it.
llama_token Placeholder(const std::string& id, size_t i) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : id) h = (h ^ c) * 16777619u;
  h = (h ^ static_cast<uint32_t>(i)) * 16777619u;
  h ^= static_cast<uint32_t>(i >> 32);
  return -static_cast<llama_token>((h & 0x3fffffffu) + 1);
}

struct TokenizeInput {
  std::string text;
  std::vector<std::vector<unsigned char>> images;
  bool add_special = false;
  bool parse_special = true;
};

class TokenizeMediaWorker : public PromiseWorker {
 public:
  TokenizeMediaWorker(Napi::Env env, Napi::Object owner, ProjectorPtr projector, TokenizeInput input)
      : PromiseWorker(env, "toolwright.tokenizeMedia", owner),
        projector_(std::move(projector)),
        input_(std::move(input)) {}

 protected:
  void Run() override {
    using BitmapPtr = std::unique_ptr<mtmd_bitmap, decltype(&mtmd_bitmap_free)>;
    std::vector<BitmapPtr> bitmaps;
    std::vector<const mtmd_bitmap*> raw;
    for (size_t i = 0; i < input_.images.size(); i++) {
      const auto& bytes = input_.images[i];
      ScopedLogCapture capture;
      mtmd_helper_bitmap_wrapper made = mtmd_helper_bitmap_init_from_buf(
          projector_->ctx, bytes.data(), bytes.size(), false, mtmd_helper_init_opt_default());
      if (made.bitmap == nullptr) {
        const std::string reason = capture.Reason();
        Fail(codes::kMediaInvalid, "image " + std::to_string(i) + " (" + std::to_string(bytes.size()) +
                                       " bytes) cannot be decoded: not a JPEG, PNG, BMP or GIF file" +
                                       (reason.empty() ? "" : " (" + reason + ")"));
        return;
      }
      bitmaps.emplace_back(made.bitmap, &mtmd_bitmap_free);
      const bool is_audio = mtmd_bitmap_is_audio(made.bitmap);
      if ((is_audio && !projector_->audio) || (!is_audio && !projector_->vision)) {
        Fail(codes::kMediaInvalid, "media " + std::to_string(i) + " is " + (is_audio ? "audio" : "an image") +
                                       ", which the projector \"" + projector_->path + "\" does not read");
        return;
      }
      raw.push_back(made.bitmap);
    }
    std::unique_ptr<mtmd_input_chunks, decltype(&mtmd_input_chunks_free)> chunks(mtmd_input_chunks_init(),
                                                                                 &mtmd_input_chunks_free);
    mtmd_input_text text{input_.text.c_str(), input_.text.size(), input_.add_special, input_.parse_special};
    ScopedLogCapture capture;
    const int32_t status = mtmd_tokenize(projector_->ctx, chunks.get(), &text, raw.data(), raw.size());
    if (status == 1) {
      Fail(codes::kMediaInvalid, "the prompt has a different number of media markers than the " +
                                     std::to_string(raw.size()) + " images given");
      return;
    }
    if (status != 0) {
      const std::string reason = capture.Reason();
      Fail(codes::kMediaInvalid, "the images cannot be prepared for the projector" +
                                     (reason.empty() ? std::string() : ": " + reason) +
                                     " (mtmd_tokenize returned " + std::to_string(status) + ")");
      return;
    }
    Collect(chunks.get());
  }

  Napi::Value Result(Napi::Env env) override {
    return MediaPromptObject::NewInstance(env, std::move(prompt_));
  }

 private:
  void Collect(const mtmd_input_chunks* chunks) {
    auto prompt = std::make_shared<MediaPrompt>();
    prompt->projector = projector_;
    const size_t n = mtmd_input_chunks_size(chunks);
    for (size_t c = 0; c < n; c++) {
      const mtmd_input_chunk* chunk = mtmd_input_chunks_get(chunks, c);
      if (mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
        size_t count = 0;
        const llama_token* tokens = mtmd_input_chunk_get_tokens_text(chunk, &count);
        prompt->tokens.insert(prompt->tokens.end(), tokens, tokens + count);
        continue;
      }
      MediaSpan span;
      span.offset = prompt->tokens.size();
      span.length = mtmd_input_chunk_get_n_tokens(chunk);
      const char* id = mtmd_input_chunk_get_id(chunk);
      span.id = id != nullptr ? id : "";
      span.chunk.reset(mtmd_input_chunk_copy(chunk), &mtmd_input_chunk_free);
      for (size_t i = 0; i < span.length; i++) prompt->tokens.push_back(Placeholder(span.id, i));
      prompt->bytes +=
          span.length * 4 * static_cast<size_t>(llama_model_n_embd_inp(projector_->model->model));
      prompt->media.push_back(std::move(span));
    }
    prompt_ = std::move(prompt);
  }

  ProjectorPtr projector_;
  TokenizeInput input_;
  MediaPromptPtr prompt_;
};

std::vector<unsigned char> ImageBytes(Napi::Env env, const Napi::Value& value, const char* method, size_t i) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    args::ThrowType(env, method, "images[" + std::to_string(i) + "] must be a Uint8Array (or Buffer)", value);
  Napi::Uint8Array bytes = value.As<Napi::Uint8Array>();
  if (bytes.ByteLength() == 0) args::ThrowRange(env, method, "images[" + std::to_string(i) + "] is empty");
  return std::vector<unsigned char>(bytes.Data(), bytes.Data() + bytes.ByteLength());
}

}  // namespace

ProjectorState::~ProjectorState() {
  if (ctx != nullptr) mtmd_free(ctx);
}

const MediaSpan* MediaPrompt::At(size_t offset) const {
  for (const MediaSpan& span : media) {
    if (span.offset == offset) return &span;
  }
  return nullptr;
}

size_t MediaPrompt::SpanStart(size_t offset) const {
  for (const MediaSpan& span : media) {
    if (offset > span.offset && offset < span.offset + span.length) return span.offset;
  }
  return offset;
}

void Projector::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "Projector",
                                    {
                                        StaticMethod<&Projector::Load>("load"),
                                        InstanceMethod<&Projector::Info>("info"),
                                        InstanceMethod<&Projector::Tokenize>("tokenize"),
                                        InstanceMethod<&Projector::Dispose>("dispose"),
                                        InstanceAccessor<&Projector::IsDisposed>("disposed"),
                                    });
  GetAddonData(env).projector_constructor = Napi::Persistent(ctor);
  exports.Set("Projector", ctor);
}

Napi::Object Projector::NewInstance(Napi::Env env, ProjectorPtr state) {
  auto* boxed = new ProjectorPtr(std::move(state));
  Napi::External<ProjectorPtr> external =
      Napi::External<ProjectorPtr>::New(env, boxed, [](Napi::Env, ProjectorPtr* p) { delete p; });
  external.TypeTag(&kProjectorTag);
  return GetAddonData(env).projector_constructor.New({external});
}

Projector::Projector(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Projector>(info) {
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<ProjectorPtr>>().CheckTypeTag(&kProjectorTag)) {
    throw Napi::TypeError::New(info.Env(),
                               "Projector: not constructible from JS; use Projector.load(model, path)");
  }
  state_ = std::move(*info[0].As<Napi::External<ProjectorPtr>>().Data());
}

// load(model, path, {threads, useGpu}) -> Promise<Projector>
Napi::Value Projector::Load(const Napi::CallbackInfo& info) {
  constexpr const char* kMethod = "Projector.load";
  Napi::Env env = info.Env();
  ModelPtr model = Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kMethod, "model");
  if (model->vocab_only)
    args::ThrowRange(env, kMethod, "the model was loaded with vocabOnly: it has no weights to run");
  ProjectorLoadOptions options;
  options.path = args::String(info, 1, kMethod, "path");
  Napi::Object o = args::OptionalObject(info, 2, kMethod, "options");
  options.threads = static_cast<int32_t>(args::OptInt(o, "threads", 4, 1, 1024, kMethod));
  options.use_gpu = args::OptBool(o, "useGpu", !model->devices.empty(), kMethod);
  return (new LoadProjectorWorker(env, info[0].As<Napi::Object>(), std::move(model), std::move(options)))
      ->Start();
}

const ProjectorPtr& Projector::Live(Napi::Env env, const char* method) const {
  if (!state_) throw Napi::Error::New(env, std::string(method) + ": the projector is disposed");
  return state_;
}

Napi::Value Projector::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ProjectorPtr& s = Live(env, "Projector.info");
  Napi::Object out = Napi::Object::New(env);
  out.Set("path", s->path);
  out.Set("vision", s->vision);
  out.Set("audio", s->audio);
  out.Set("marker", mtmd_get_marker(s->ctx));
  return out;
}

// tokenize(text, images, {addSpecial, parseSpecial}) -> Promise<MediaPrompt>: `text` holds one
// media marker per image, in order.
Napi::Value Projector::Tokenize(const Napi::CallbackInfo& info) {
  constexpr const char* kMethod = "Projector.tokenize";
  Napi::Env env = info.Env();
  const ProjectorPtr& s = Live(env, kMethod);
  TokenizeInput input;
  input.text = args::String(info, 0, kMethod, "text");
  if (info.Length() < 2 || !info[1].IsArray())
    args::ThrowType(env, kMethod, "images must be an array of Uint8Array",
                    info.Length() > 1 ? info[1] : env.Undefined());
  Napi::Array images = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < images.Length(); i++)
    input.images.push_back(ImageBytes(env, images.Get(i), kMethod, i));
  Napi::Object o = args::OptionalObject(info, 2, kMethod, "options");
  input.add_special = args::OptBool(o, "addSpecial", false, kMethod);
  input.parse_special = args::OptBool(o, "parseSpecial", true, kMethod);
  return (new TokenizeMediaWorker(env, info.This().As<Napi::Object>(), s, std::move(input)))->Start();
}

Napi::Value Projector::Dispose(const Napi::CallbackInfo& info) {
  state_.reset();  // prompts and contexts still using it keep it alive
  external_.Release();
  return info.Env().Undefined();
}

Napi::Value Projector::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !state_);
}

void MediaPromptObject::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "MediaPrompt",
                                    {
                                        InstanceMethod<&MediaPromptObject::Tokens>("tokens"),
                                        InstanceMethod<&MediaPromptObject::Media>("media"),
                                    });
  GetAddonData(env).media_prompt_constructor = Napi::Persistent(ctor);
  exports.Set("MediaPrompt", ctor);
}

Napi::Object MediaPromptObject::NewInstance(Napi::Env env, MediaPromptPtr prompt) {
  auto* boxed = new MediaPromptPtr(std::move(prompt));
  Napi::External<MediaPromptPtr> external =
      Napi::External<MediaPromptPtr>::New(env, boxed, [](Napi::Env, MediaPromptPtr* p) { delete p; });
  external.TypeTag(&kMediaPromptTag);
  return GetAddonData(env).media_prompt_constructor.New({external});
}

MediaPromptObject::MediaPromptObject(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<MediaPromptObject>(info) {
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<MediaPromptPtr>>().CheckTypeTag(&kMediaPromptTag)) {
    throw Napi::TypeError::New(info.Env(),
                               "MediaPrompt: not constructible from JS; use projector.tokenize()");
  }
  prompt_ = std::move(*info[0].As<Napi::External<MediaPromptPtr>>().Data());
  if (prompt_) external_.Set(info.Env(), static_cast<int64_t>(prompt_->bytes));
}

MediaPromptPtr MediaPromptObject::FromValue(const Napi::Value& value) {
  if (!value.IsObject()) return nullptr;
  Napi::Object object = value.As<Napi::Object>();
  Napi::Env env = value.Env();
  bool is = false;
  napi_instanceof(env, object, GetAddonData(env).media_prompt_constructor.Value(), &is);
  if (!is) return nullptr;
  return MediaPromptObject::Unwrap(object)->prompt_;
}

Napi::Value MediaPromptObject::Tokens(const Napi::CallbackInfo& info) {
  Napi::Int32Array out = Napi::Int32Array::New(info.Env(), prompt_->tokens.size());
  if (!prompt_->tokens.empty()) std::memcpy(out.Data(), prompt_->tokens.data(), prompt_->tokens.size() * 4);
  return out;
}

Napi::Value MediaPromptObject::Media(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env, prompt_->media.size());
  for (size_t i = 0; i < prompt_->media.size(); i++) {
    const MediaSpan& span = prompt_->media[i];
    Napi::Object item = Napi::Object::New(env);
    item.Set("offset", static_cast<double>(span.offset));
    item.Set("length", static_cast<double>(span.length));
    item.Set("id", span.id);
    out.Set(static_cast<uint32_t>(i), item);
  }
  return out;
}

}  // namespace toolwright
