// Projector: a multimodal projector (an mmproj GGUF, llama.cpp's mtmd library) loaded for one
// model, and MediaPrompt: a prompt whose text was tokenized with images in it.
//
// A MediaPrompt's tokens hold one placeholder per position an image takes in the KV cache: a
// negative id derived from the image's content hash and the position inside it. Placeholders are
// never decoded as tokens; the scheduler (batch_scheduler.cc) decodes the image's embeddings at
// their positions instead. Because the same image at the same place gives the same placeholders,
// the prefix cache recognises an image it has already evaluated, as it does text.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "external_memory.h"
#include "llama.h"
#include "model.h"
#include "mtmd.h"

namespace toolwright {

struct ProjectorState {
  ModelPtr model;  // declared first: released after the projector is freed
  mtmd_context* ctx = nullptr;
  std::string path;
  bool vision = false;
  bool audio = false;
  // mtmd's encoder is not safe to run from two threads at once (two contexts of one model).
  std::mutex encode_mutex;

  ProjectorState() = default;
  ProjectorState(const ProjectorState&) = delete;
  ProjectorState& operator=(const ProjectorState&) = delete;
  ~ProjectorState();
};
using ProjectorPtr = std::shared_ptr<ProjectorState>;

// One image in a MediaPrompt: where its placeholders start and how many there are.
struct MediaSpan {
  size_t offset = 0;
  size_t length = 0;
  std::string id;
  std::shared_ptr<mtmd_input_chunk> chunk;
};

struct MediaPrompt {
  ProjectorPtr projector;
  std::vector<llama_token> tokens;  // text tokens and placeholders
  std::vector<MediaSpan> media;     // in prompt order
  size_t bytes = 0;                 // memory the prepared images hold

  // The span starting at `offset`, or null.
  const MediaSpan* At(size_t offset) const;
  // The start of the span covering `offset`, or `offset` when none does.
  size_t SpanStart(size_t offset) const;
};
using MediaPromptPtr = std::shared_ptr<const MediaPrompt>;

// Whether a token is an image placeholder (never a vocabulary id).
inline bool IsPlaceholder(llama_token token) { return token < 0; }

class Projector : public Napi::ObjectWrap<Projector> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object NewInstance(Napi::Env env, ProjectorPtr state);

  explicit Projector(const Napi::CallbackInfo& info);

 private:
  static Napi::Value Load(const Napi::CallbackInfo& info);
  const ProjectorPtr& Live(Napi::Env env, const char* method) const;

  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Tokenize(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  ProjectorPtr state_;
  ExternalMemory external_;
};

class MediaPromptObject : public Napi::ObjectWrap<MediaPromptObject> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object NewInstance(Napi::Env env, MediaPromptPtr prompt);
  // The prompt of a JS MediaPrompt, or null when `value` is not one.
  static MediaPromptPtr FromValue(const Napi::Value& value);

  explicit MediaPromptObject(const Napi::CallbackInfo& info);

 private:
  Napi::Value Tokens(const Napi::CallbackInfo& info);
  Napi::Value Media(const Napi::CallbackInfo& info);

  MediaPromptPtr prompt_;
  ExternalMemory external_;
};

}  // namespace toolwright
