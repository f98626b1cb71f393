#include "model.h"

#include <cstring>
#include <vector>

#include "addon_data.h"
#include "grammar_toolwright.h"
#include "model_load.h"
#include "napi_args.h"
#include "promise_worker.h"
#include "rpc.h"
#include "vocab_ops.h"

namespace toolwright {
namespace {

// Marks the External that carries a ModelPtr into the constructor, so JS cannot forge one.
const napi_type_tag kModelHandleTag = {0x7a1e5f0c2b9d4e61ULL, 0x9c3b8d2f6a4e1b07ULL};

Napi::Value TokenOrNull(Napi::Env env, llama_token token) {
  return Napi::Number::New(env, token == LLAMA_TOKEN_NULL ? -1 : token);
}

Napi::Int32Array ToInt32Array(Napi::Env env, const std::vector<llama_token>& tokens) {
  Napi::Int32Array array = Napi::Int32Array::New(env, tokens.size());
  if (!tokens.empty()) std::memcpy(array.Data(), tokens.data(), tokens.size() * sizeof(llama_token));
  return array;
}

// Tokenizes a long text off the main thread.
class TokenizeWorker : public PromiseWorker {
 public:
  TokenizeWorker(Napi::Env env, Napi::Object owner, ModelPtr model, std::string text, bool add_special,
                 bool parse_special)
      : PromiseWorker(env, "toolwright.tokenize", owner),
        model_(std::move(model)),
        text_(std::move(text)),
        add_special_(add_special),
        parse_special_(parse_special) {}

 protected:
  void Run() override {
    std::string error;
    if (!TokenizeText(model_->vocab, text_, add_special_, parse_special_, &tokens_, &error)) {
      Fail(codes::kTokenizeFailed, "tokenize: " + error);
    }
  }
  Napi::Value Result(Napi::Env env) override { return ToInt32Array(env, tokens_); }

 private:
  ModelPtr model_;
  std::string text_;
  bool add_special_;
  bool parse_special_;
  std::vector<llama_token> tokens_;
};

// Detokenizes many tokens off the main thread.
class DetokenizeWorker : public PromiseWorker {
 public:
  DetokenizeWorker(Napi::Env env, Napi::Object owner, ModelPtr model, std::vector<llama_token> tokens,
                   bool remove_special, bool unparse_special)
      : PromiseWorker(env, "toolwright.detokenize", owner),
        model_(std::move(model)),
        tokens_(std::move(tokens)),
        remove_special_(remove_special),
        unparse_special_(unparse_special) {}

 protected:
  void Run() override {
    std::string error;
    if (!DetokenizeTokens(model_->vocab, tokens_, remove_special_, unparse_special_, &text_, &error)) {
      Fail(codes::kDetokenizeFailed, "detokenize: " + error);
    }
  }
  Napi::Value Result(Napi::Env env) override {
    return Napi::Buffer<char>::Copy(env, text_.data(), text_.size());
  }

 private:
  ModelPtr model_;
  std::vector<llama_token> tokens_;
  bool remove_special_;
  bool unparse_special_;
  std::string text_;
};

// Every token's bytes and attributes in three flat arrays (for token tables).
class VocabularyWorker : public PromiseWorker {
 public:
  VocabularyWorker(Napi::Env env, Napi::Object owner, ModelPtr model)
      : PromiseWorker(env, "toolwright.vocabulary", owner), model_(std::move(model)) {}

 protected:
  void Run() override {
    const int32_t n = model_->n_vocab;
    offsets_.resize(static_cast<size_t>(n) + 1);
    attributes_.resize(static_cast<size_t>(n));
    for (int32_t id = 0; id < n; id++) {
      offsets_[id] = static_cast<uint32_t>(bytes_.size());
      bytes_ += TokenPiece(model_->vocab, id);
      attributes_[id] = static_cast<uint32_t>(llama_vocab_get_attr(model_->vocab, id));
    }
    offsets_[n] = static_cast<uint32_t>(bytes_.size());
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("bytes", Napi::Buffer<char>::Copy(env, bytes_.data(), bytes_.size()));
    Napi::Uint32Array offsets = Napi::Uint32Array::New(env, offsets_.size());
    std::memcpy(offsets.Data(), offsets_.data(), offsets_.size() * sizeof(uint32_t));
    Napi::Uint32Array attributes = Napi::Uint32Array::New(env, attributes_.size());
    if (!attributes_.empty()) {
      std::memcpy(attributes.Data(), attributes_.data(), attributes_.size() * sizeof(uint32_t));
    }
    out.Set("offsets", offsets);
    out.Set("attributes", attributes);
    return out;
  }

 private:
  ModelPtr model_;
  std::string bytes_;
  std::vector<uint32_t> offsets_;
  std::vector<uint32_t> attributes_;
};

}  // namespace

ModelHandle::ModelHandle(llama_model* m, bool vocab_only_load, std::string file)
    : model(m), vocab(llama_model_get_vocab(m)), vocab_only(vocab_only_load), path(std::move(file)) {
  n_vocab = llama_vocab_n_tokens(vocab);
}

ModelHandle::~ModelHandle() {
  ForgetToolwrightGrammarVocab(vocab);
  if (ModelRpcLost(*this)) return;  // freeing would wait on the lost server forever: leaked (rpc.h)
  llama_model_free(model);
}

void Model::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "Model",
                                    {
                                        StaticMethod<&LoadModel>("load"),
                                        InstanceMethod<&Model::Info>("info"),
                                        InstanceMethod<&Model::Metadata>("metadata"),
                                        InstanceMethod<&Model::ChatTemplate>("chatTemplate"),
                                        InstanceMethod<&Model::SpecialTokens>("specialTokens"),
                                        InstanceMethod<&Model::TokenPiece>("tokenPiece"),
                                        InstanceMethod<&Model::TokenAttributes>("tokenAttributes"),
                                        InstanceMethod<&Model::IsEog>("isEog"),
                                        InstanceMethod<&Model::Vocabulary>("vocabulary"),
                                        InstanceMethod<&Model::Tokenize>("tokenize"),
                                        InstanceMethod<&Model::TokenizeAsync>("tokenizeAsync"),
                                        InstanceMethod<&Model::Detokenize>("detokenize"),
                                        InstanceMethod<&Model::DetokenizeAsync>("detokenizeAsync"),
                                        InstanceMethod<&Model::Dispose>("dispose"),
                                        InstanceAccessor<&Model::IsDisposed>("disposed"),
                                    });
  GetAddonData(env).model_constructor = Napi::Persistent(ctor);
  exports.Set("Model", ctor);
}

Napi::Object Model::NewInstance(Napi::Env env, ModelPtr handle) {
  auto* boxed = new ModelPtr(std::move(handle));
  Napi::External<ModelPtr> external =
      Napi::External<ModelPtr>::New(env, boxed, [](Napi::Env, ModelPtr* p) { delete p; });
  external.TypeTag(&kModelHandleTag);
  return GetAddonData(env).model_constructor.New({external});
}

Model::Model(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Model>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<ModelPtr>>().CheckTypeTag(&kModelHandleTag)) {
    throw Napi::TypeError::New(env, "Model: not constructible from JS; use Model.load(path, options)");
  }
  // Take the reference out of the box: the External lives until GC, and dispose() must free now.
  handle_ = std::move(*info[0].As<Napi::External<ModelPtr>>().Data());
  if (handle_) external_.Set(env, static_cast<int64_t>(llama_model_size(handle_->model)));
}

ModelPtr Model::FromValue(Napi::Env env, const Napi::Value& value, const char* method, const char* what) {
  Napi::FunctionReference& ctor = GetAddonData(env).model_constructor;
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(ctor.Value())) {
    args::ThrowType(env, method, std::string(what) + " must be a native Model", value);
  }
  Model* model = Napi::ObjectWrap<Model>::Unwrap(value.As<Napi::Object>());
  return model->Live(env, method);
}

const ModelPtr& Model::Live(Napi::Env env, const char* method) const {
  if (!handle_) throw Napi::Error::New(env, std::string(method) + ": the model is disposed");
  return handle_;
}

Napi::Value Model::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.info");
  Napi::Object out = Napi::Object::New(env);
  char desc[256];
  llama_model_desc(h->model, desc, sizeof(desc));
  out.Set("path", h->path);
  out.Set("description", desc);
  out.Set("vocabOnly", h->vocab_only);
  out.Set("vocabSize", h->n_vocab);
  out.Set("vocabType", static_cast<int>(llama_vocab_type(h->vocab)));
  out.Set("trainContextSize", llama_model_n_ctx_train(h->model));
  out.Set("embeddingSize", llama_model_n_embd(h->model));
  out.Set("layerCount", llama_model_n_layer(h->model));
  out.Set("sizeBytes", static_cast<double>(llama_model_size(h->model)));
  out.Set("parameterCount", static_cast<double>(llama_model_n_params(h->model)));
  out.Set("hasEncoder", llama_model_has_encoder(h->model));
  out.Set("hasDecoder", llama_model_has_decoder(h->model));
  out.Set("isRecurrent", llama_model_is_recurrent(h->model) || llama_model_is_hybrid(h->model));
  Napi::Array devices = Napi::Array::New(env);
  for (uint32_t i = 0; i < h->devices.size(); i++) devices.Set(i, DeviceToJs(env, h->devices[i]));
  out.Set("devices", devices);
  out.Set("gpuLayers", h->gpu_layers);
  return out;
}

Napi::Value Model::Metadata(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.metadata");
  Napi::Object out = Napi::Object::New(env);
  const int32_t count = llama_model_meta_count(h->model);
  std::vector<char> key(256);
  std::vector<char> value(1024);
  for (int32_t i = 0; i < count; i++) {
    int32_t n = llama_model_meta_key_by_index(h->model, i, key.data(), key.size());
    if (n < 0) continue;
    if (static_cast<size_t>(n) >= key.size()) {
      key.resize(static_cast<size_t>(n) + 1);
      llama_model_meta_key_by_index(h->model, i, key.data(), key.size());
    }
    n = llama_model_meta_val_str_by_index(h->model, i, value.data(), value.size());
    if (n < 0) continue;
    if (static_cast<size_t>(n) >= value.size()) {
      value.resize(static_cast<size_t>(n) + 1);
      n = llama_model_meta_val_str_by_index(h->model, i, value.data(), value.size());
    }
    out.Set(Napi::String::New(env, key.data()), Napi::String::New(env, value.data(), static_cast<size_t>(n)));
  }
  return out;
}

Napi::Value Model::ChatTemplate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.chatTemplate");
  std::string name;
  if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) {
    name = args::String(info, 0, "Model.chatTemplate", "name");
  }
  const char* tmpl = llama_model_chat_template(h->model, name.empty() ? nullptr : name.c_str());
  return tmpl == nullptr ? env.Null() : Napi::String::New(env, tmpl);
}

Napi::Value Model::SpecialTokens(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.specialTokens");
  const llama_vocab* v = h->vocab;
  Napi::Object out = Napi::Object::New(env);
  out.Set("bos", TokenOrNull(env, llama_vocab_bos(v)));
  out.Set("eos", TokenOrNull(env, llama_vocab_eos(v)));
  out.Set("eot", TokenOrNull(env, llama_vocab_eot(v)));
  out.Set("sep", TokenOrNull(env, llama_vocab_sep(v)));
  out.Set("nl", TokenOrNull(env, llama_vocab_nl(v)));
  out.Set("pad", TokenOrNull(env, llama_vocab_pad(v)));
  out.Set("mask", TokenOrNull(env, llama_vocab_mask(v)));
  out.Set("fimPre", TokenOrNull(env, llama_vocab_fim_pre(v)));
  out.Set("fimSuf", TokenOrNull(env, llama_vocab_fim_suf(v)));
  out.Set("fimMid", TokenOrNull(env, llama_vocab_fim_mid(v)));
  out.Set("fimPad", TokenOrNull(env, llama_vocab_fim_pad(v)));
  out.Set("fimRep", TokenOrNull(env, llama_vocab_fim_rep(v)));
  out.Set("fimSep", TokenOrNull(env, llama_vocab_fim_sep(v)));
  out.Set("decoderStart", TokenOrNull(env, llama_model_decoder_start_token(h->model)));
  out.Set("addBos", llama_vocab_get_add_bos(v));
  out.Set("addEos", llama_vocab_get_add_eos(v));
  out.Set("addSep", llama_vocab_get_add_sep(v));
  // Every end-of-generation token (EOS, EOT, <|im_end|>, ... as the vocabulary marks them).
  Napi::Array eog = Napi::Array::New(env);
  uint32_t n_eog = 0;
  for (int32_t id = 0; id < h->n_vocab; id++) {
    if (llama_vocab_is_eog(v, id)) eog.Set(n_eog++, Napi::Number::New(env, id));
  }
  out.Set("eog", eog);
  return out;
}

Napi::Value Model::TokenPiece(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.tokenPiece");
  const auto id =
      static_cast<llama_token>(args::Integer(info, 0, "Model.tokenPiece", "token", 0, h->n_vocab - 1));
  const std::string piece = toolwright::TokenPiece(h->vocab, id);
  return Napi::Buffer<char>::Copy(env, piece.data(), piece.size());
}

Napi::Value Model::TokenAttributes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.tokenAttributes");
  const auto id =
      static_cast<llama_token>(args::Integer(info, 0, "Model.tokenAttributes", "token", 0, h->n_vocab - 1));
  return Napi::Number::New(env, static_cast<uint32_t>(llama_vocab_get_attr(h->vocab, id)));
}

Napi::Value Model::IsEog(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.isEog");
  const auto id = static_cast<llama_token>(args::Integer(info, 0, "Model.isEog", "token", 0, h->n_vocab - 1));
  return Napi::Boolean::New(env, llama_vocab_is_eog(h->vocab, id));
}

Napi::Value Model::Vocabulary(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return (new VocabularyWorker(env, info.This().As<Napi::Object>(), Live(env, "Model.vocabulary")))->Start();
}

// tokenize(text, {addSpecial, parseSpecial}) -> Int32Array, on the calling thread (short texts)
Napi::Value Model::Tokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.tokenize");
  const std::string text = args::String(info, 0, "Model.tokenize", "text");
  Napi::Object options = args::OptionalObject(info, 1, "Model.tokenize", "options");
  const bool add_special = args::OptBool(options, "addSpecial", true, "Model.tokenize");
  const bool parse_special = args::OptBool(options, "parseSpecial", true, "Model.tokenize");
  std::vector<llama_token> tokens;
  std::string error;
  if (!TokenizeText(h->vocab, text, add_special, parse_special, &tokens, &error)) {
    Napi::Error e = Napi::Error::New(env, "Model.tokenize: " + error);
    e.Set("code", Napi::String::New(env, codes::kTokenizeFailed));
    throw e;
  }
  return ToInt32Array(env, tokens);
}

Napi::Value Model::TokenizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.tokenizeAsync");
  std::string text = args::String(info, 0, "Model.tokenizeAsync", "text");
  Napi::Object options = args::OptionalObject(info, 1, "Model.tokenizeAsync", "options");
  const bool add_special = args::OptBool(options, "addSpecial", true, "Model.tokenizeAsync");
  const bool parse_special = args::OptBool(options, "parseSpecial", true, "Model.tokenizeAsync");
  return (new TokenizeWorker(env, info.This().As<Napi::Object>(), h, std::move(text), add_special,
                             parse_special))
      ->Start();
}

// detokenize(tokens, {removeSpecial, unparseSpecial})
Napi::Value Model::Detokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.detokenize");
  const std::vector<llama_token> tokens = args::Tokens(env, info.Length() > 0 ? info[0] : env.Undefined(),
                                                       h->n_vocab, "Model.detokenize", "tokens");
  Napi::Object options = args::OptionalObject(info, 1, "Model.detokenize", "options");
  const bool remove_special = args::OptBool(options, "removeSpecial", false, "Model.detokenize");
  const bool unparse_special = args::OptBool(options, "unparseSpecial", true, "Model.detokenize");
  std::string text;
  std::string error;
  if (!DetokenizeTokens(h->vocab, tokens, remove_special, unparse_special, &text, &error)) {
    throw Napi::Error::New(env, "Model.detokenize: " + error);
  }
  return Napi::Buffer<char>::Copy(env, text.data(), text.size());
}

Napi::Value Model::DetokenizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ModelPtr& h = Live(env, "Model.detokenizeAsync");
  std::vector<llama_token> tokens = args::Tokens(env, info.Length() > 0 ? info[0] : env.Undefined(),
                                                 h->n_vocab, "Model.detokenizeAsync", "tokens");
  Napi::Object options = args::OptionalObject(info, 1, "Model.detokenizeAsync", "options");
  const bool remove_special = args::OptBool(options, "removeSpecial", false, "Model.detokenizeAsync");
  const bool unparse_special = args::OptBool(options, "unparseSpecial", true, "Model.detokenizeAsync");
  return (new DetokenizeWorker(env, info.This().As<Napi::Object>(), h, std::move(tokens), remove_special,
                               unparse_special))
      ->Start();
}

Napi::Value Model::Dispose(const Napi::CallbackInfo& info) {
  // Contexts and workers keep their own reference; the weights go when the last one does.
  handle_.reset();
  external_.Release();
  return info.Env().Undefined();
}

Napi::Value Model::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !handle_);
}

}  // namespace toolwright
