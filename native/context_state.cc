// Context methods that change what the context computes with or holds, each run as a job on the
// context's thread between the scheduler's rounds (context_job.h): the LoRA adapters applied, and
// one sequence's KV state saved out or restored (a saved session; the file format is the JS side's).
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "batch_scheduler.h"
#include "context.h"
#include "context_job.h"
#include "log_capture.h"
#include "lora.h"
#include "napi_args.h"
#include "promise_worker.h"

namespace toolwright {
namespace {

// The job's refusal while a generation runs or waits: adapters change every sequence's weights.
bool CheckIdle(ContextState& state, const char* method, JobStatus* status) {
  if (state.scheduler->Idle()) return true;
  status->code = codes::kContextBusy;
  status->error = std::string(method) + ": the context is busy (a generation is running on it)";
  return false;
}

class SetLorasWorker : public PromiseWorker {
 public:
  SetLorasWorker(Napi::Env env, Napi::Object owner, ContextPtr state, std::vector<LoraPtr> loras,
                 std::vector<float> scales)
      : PromiseWorker(env, "toolwright.setLoras", owner),
        state_(std::move(state)),
        loras_(std::move(loras)),
        scales_(std::move(scales)) {}

 protected:
  void Run() override {
    JobStatus status = RunOnContextThread<JobStatus>(
        state_,
        [loras = std::move(loras_), scales = std::move(scales_)](Delivery<JobStatus>& delivery) mutable {
          constexpr const char* kMethod = "Context.setLoras";
          ContextState& s = delivery.state();
          JobStatus st;
          if (CheckNotCancelled(s, kMethod, &st) && CheckIdle(s, kMethod, &st) &&
              (loras != s.loras || scales != s.lora_scales)) {
            std::vector<llama_adapter_lora*> raw;
            raw.reserve(loras.size());
            for (const LoraPtr& lora : loras) raw.push_back(lora->adapter);
            ScopedLogCapture capture;
            if (llama_set_adapters_lora(s.ctx, raw.empty() ? nullptr : raw.data(), raw.size(),
                                        scales.empty() ? nullptr : scales.data()) != 0) {
              const std::string reason = capture.Reason();
              st.code = codes::kLoraInvalid;
              st.error = std::string(kMethod) + ": llama_set_adapters_lora failed" +
                         (reason.empty() ? "" : ": " + reason);
            } else {
              s.loras = std::move(loras);
              s.lora_scales = std::move(scales);
              // The cached tokens were computed under the old weights: no prompt may reuse them.
              s.scheduler->Clear(s);
            }
          }
          delivery.Final(std::move(st));
        });
    if (!status.code.empty()) Fail(status.code, status.error);
  }
  Napi::Value Result(Napi::Env env) override { return env.Undefined(); }

 private:
  ContextPtr state_;
  std::vector<LoraPtr> loras_;
  std::vector<float> scales_;
};

// What a state job reports: its status and the sequence state it read or wrote.
struct StateOutcome {
  JobStatus status;
  SequenceState sequence;
};

class SaveSequenceWorker : public PromiseWorker {
 public:
  SaveSequenceWorker(Napi::Env env, Napi::Object owner, ContextPtr state, llama_seq_id seq)
      : PromiseWorker(env, "toolwright.saveSequence", owner), state_(std::move(state)), seq_(seq) {}

 protected:
  void Run() override {
    StateOutcome outcome =
        RunOnContextThread<StateOutcome>(state_, [seq = seq_](Delivery<StateOutcome>& delivery) {
          ContextState& s = delivery.state();
          StateOutcome out;
          if (CheckNotCancelled(s, "Context.saveSequence", &out.status))
            s.scheduler->SaveSequence(s, seq, &out.sequence, &out.status.code, &out.status.error);
          delivery.Final(std::move(out));
        });
    if (!outcome.status.code.empty() || !outcome.status.error.empty()) {
      Fail(outcome.status.code, "Context.saveSequence: " + outcome.status.error);
      return;
    }
    saved_ = std::move(outcome.sequence);
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("sequence", saved_.seq);
    Napi::Int32Array tokens = Napi::Int32Array::New(env, saved_.tokens.size());
    if (!saved_.tokens.empty())
      std::memcpy(tokens.Data(), saved_.tokens.data(), saved_.tokens.size() * sizeof(llama_token));
    out.Set("tokens", tokens);
    // A copy, not an external buffer: Electron's V8 sandbox refuses memory it did not allocate.
    out.Set("data", Napi::Buffer<uint8_t>::Copy(env, saved_.data.data(), saved_.data.size()));
    return out;
  }

 private:
  ContextPtr state_;
  llama_seq_id seq_;
  SequenceState saved_;
};

class RestoreSequenceWorker : public PromiseWorker {
 public:
  RestoreSequenceWorker(Napi::Env env, Napi::Object owner, ContextPtr state, SequenceState input)
      : PromiseWorker(env, "toolwright.restoreSequence", owner),
        state_(std::move(state)),
        input_(std::move(input)) {}

 protected:
  void Run() override {
    StateOutcome outcome = RunOnContextThread<StateOutcome>(
        state_, [input = std::move(input_)](Delivery<StateOutcome>& delivery) mutable {
          ContextState& s = delivery.state();
          StateOutcome out;
          if (CheckNotCancelled(s, "Context.restoreSequence", &out.status))
            s.scheduler->RestoreSequence(s, &input, &out.status.code, &out.status.error);
          out.sequence.seq = input.seq;
          delivery.Final(std::move(out));
        });
    if (!outcome.status.code.empty() || !outcome.status.error.empty()) {
      Fail(outcome.status.code, "Context.restoreSequence: " + outcome.status.error);
      return;
    }
    seq_ = outcome.sequence.seq;
  }
  Napi::Value Result(Napi::Env env) override { return Napi::Number::New(env, seq_); }

 private:
  ContextPtr state_;
  SequenceState input_;
  llama_seq_id seq_ = 0;
};

// The sequence argument: -1 (the scheduler picks) or one of the context's.
llama_seq_id SequenceArg(const Napi::CallbackInfo& info, size_t index, const ContextState& s,
                         const char* method) {
  return static_cast<llama_seq_id>(args::Integer(info, index, method, "sequence", -1, s.n_seq - 1));
}

}  // namespace

// setLoras([{adapter, scale}]) -> Promise<void>: the adapters every later decode adds (none: the
// base weights). Every sequence's cache is emptied when the set changes.
Napi::Value Context::SetLoras(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.setLoras";
  const ContextPtr& s = Idle(env, kMethod);
  if (info.Length() < 1 || !info[0].IsArray())
    args::ThrowType(env, kMethod, "loras must be an array", info.Length() > 0 ? info[0] : env.Undefined());
  Napi::Array list = info[0].As<Napi::Array>();
  std::vector<LoraPtr> loras;
  std::vector<float> scales;
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value entry = list.Get(i);
    if (!entry.IsObject()) args::ThrowType(env, kMethod, "each entry must be {adapter, scale}", entry);
    Napi::Object o = entry.As<Napi::Object>();
    LoraPtr lora = LoraAdapter::FromValue(env, o.Get("adapter"), kMethod, "adapter");
    if (lora->model->model != s->model->model)
      args::ThrowRange(env, kMethod, "the adapter \"" + lora->path + "\" was loaded for a different model");
    const double scale = args::OptNumber(o, "scale", 1.0, -1e6, 1e6, kMethod);
    loras.push_back(std::move(lora));
    scales.push_back(static_cast<float>(scale));
  }
  return (new SetLorasWorker(env, info.This().As<Napi::Object>(), s, std::move(loras), std::move(scales)))
      ->Start();
}

// saveSequence(sequence) -> Promise<{sequence, tokens, data}>
Napi::Value Context::SaveSequence(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.saveSequence";
  const ContextPtr& s = Idle(env, kMethod);
  const llama_seq_id seq = SequenceArg(info, 0, *s, kMethod);
  return (new SaveSequenceWorker(env, info.This().As<Napi::Object>(), s, seq))->Start();
}

// restoreSequence(sequence, tokens, data) -> Promise<the sequence restored>
Napi::Value Context::RestoreSequence(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.restoreSequence";
  const ContextPtr& s = Idle(env, kMethod);
  SequenceState input;
  input.seq = SequenceArg(info, 0, *s, kMethod);
  input.tokens =
      args::Tokens(env, info.Length() > 1 ? info[1] : env.Undefined(), s->model->n_vocab, kMethod, "tokens");
  if (info.Length() < 3 || !info[2].IsTypedArray() ||
      info[2].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    args::ThrowType(env, kMethod, "data must be a Uint8Array", info.Length() > 2 ? info[2] : env.Undefined());
  }
  Napi::Uint8Array data = info[2].As<Napi::Uint8Array>();
  input.data.assign(data.Data(), data.Data() + data.ByteLength());
  return (new RestoreSequenceWorker(env, info.This().As<Napi::Object>(), s, std::move(input)))->Start();
}

}  // namespace toolwright
