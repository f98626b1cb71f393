#include "speculative.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "batch_add.h"
#include "log_capture.h"
#include "warm_up.h"

#ifdef TOOLWRIGHT_HAS_GRAMMAR_ENGINE
#include "llama_adapter.h"
#include "matcher.h"
#endif

namespace toolwright {

namespace {
// Candidates a draft looks at when the grammar refuses the draft model's first choice.
constexpr size_t kDraftCandidates = 16;
}  // namespace

std::vector<llama_token> LookupDraft(const std::vector<llama_token>& history, size_t max_tokens, size_t min_n,
                                     size_t max_n) {
  const size_t size = history.size();
  if (max_tokens == 0 || min_n == 0) return {};
  for (size_t n = std::min(max_n, size > 0 ? size - 1 : 0); n >= min_n; n--) {
    const llama_token* key = history.data() + (size - n);
    // The latest earlier occurrence (ending before the key itself), so its continuation exists.
    for (size_t start = size - n; start-- > 0;) {
      if (std::memcmp(history.data() + start, key, n * sizeof(llama_token)) != 0) continue;
      const size_t from = start + n;
      const size_t to = std::min(size, from + max_tokens);
      return std::vector<llama_token>(history.begin() + static_cast<std::ptrdiff_t>(from),
                                      history.begin() + static_cast<std::ptrdiff_t>(to));
    }
  }
  return {};
}

bool SameVocabulary(const llama_model* target, const llama_model* draft, std::string* reason) {
  const llama_vocab* a = llama_model_get_vocab(target);
  const llama_vocab* b = llama_model_get_vocab(draft);
  if (llama_vocab_type(a) != llama_vocab_type(b)) {
    *reason = "its tokenizer is of another type";
    return false;
  }
  const int32_t n = llama_vocab_n_tokens(a);
  if (n != llama_vocab_n_tokens(b)) {
    *reason = "it has " + std::to_string(llama_vocab_n_tokens(b)) + " tokens, the model " + std::to_string(n);
    return false;
  }
  if (llama_vocab_bos(a) != llama_vocab_bos(b) || llama_vocab_eos(a) != llama_vocab_eos(b) ||
      llama_vocab_eot(a) != llama_vocab_eot(b)) {
    *reason = "its special tokens (BOS, EOS, EOT) differ from the model's";
    return false;
  }
  for (llama_token t = 0; t < n; t++) {
    const char* x = llama_vocab_get_text(a, t);
    const char* y = llama_vocab_get_text(b, t);
    if (std::strcmp(x != nullptr ? x : "", y != nullptr ? y : "") != 0) {
      *reason = "token " + std::to_string(t) + " spells differently";
      return false;
    }
  }
  return true;
}

// ---- DraftGuard ---------------------------------------------------------------------------------

#ifdef TOOLWRIGHT_HAS_GRAMMAR_ENGINE
DraftGuard::DraftGuard(llama_sampler* grammar)
    : matcher_(grammar != nullptr ? grammar::active_matcher(grammar) : nullptr) {}

DraftGuard::~DraftGuard() {
  if (matcher_ != nullptr && accepted_ > 0) static_cast<grammar::Matcher*>(matcher_)->rollback(accepted_);
}

void DraftGuard::FillMask(std::vector<uint64_t>* bits) {
  auto* matcher = static_cast<grammar::Matcher*>(matcher_);
  bits->assign(matcher->mask_words(), 0);
  matcher->fill_mask(bits->data());
}

bool DraftGuard::Allow(llama_token token) {
  if (matcher_ == nullptr) return true;
  if (!static_cast<grammar::Matcher*>(matcher_)->accept(token)) return false;
  accepted_++;
  return true;
}
#else
DraftGuard::DraftGuard(llama_sampler* /*grammar*/) {}
DraftGuard::~DraftGuard() = default;
bool DraftGuard::Allow(llama_token /*token*/) { return true; }
void DraftGuard::FillMask(std::vector<uint64_t>* bits) { bits->clear(); }
#endif

// ---- DraftModel ---------------------------------------------------------------------------------

std::unique_ptr<DraftModel> DraftModel::Create(ModelPtr model, uint32_t n_ctx_per_seq, int32_t sequences,
                                               uint32_t n_batch, std::string* error) {
  if (llama_model_is_recurrent(model->model) || llama_model_is_hybrid(model->model)) {
    // Rejected drafts leave its cache: a recurrent state cannot drop them.
    *error = "a recurrent or hybrid model cannot be a draft model";
    return nullptr;
  }
  llama_context_params params = llama_context_default_params();
  params.n_ctx = n_ctx_per_seq * static_cast<uint32_t>(std::max(1, sequences));
  params.n_batch = n_batch;
  params.n_ubatch = n_batch;
  params.n_seq_max = static_cast<uint32_t>(std::max(1, sequences));
  params.kv_unified = sequences <= 1;  // as the target: each sequence its own cache when parallel
  params.no_perf = true;
  std::unique_ptr<DraftModel> draft(new DraftModel());
  draft->ctx_ = InitContext(model->model, params, error);
  if (draft->ctx_ == nullptr) {
    *error = "its context could not be made: " + *error + " (llama_init_from_model failed)";
    return nullptr;
  }
  draft->model_ = std::move(model);
  draft->n_ctx_ = llama_n_ctx_seq(draft->ctx_);
  draft->capacity_ = static_cast<int32_t>(llama_n_batch(draft->ctx_));
  draft->batch_ = llama_batch_init(draft->capacity_, 0, 1);
  draft->cached_.resize(static_cast<size_t>(std::max(1, sequences)));
  return draft;
}

DraftModel::~DraftModel() {
  if (capacity_ > 0) llama_batch_free(batch_);
  if (ctx_ != nullptr) llama_free(ctx_);
}

void DraftModel::AttachThreadPools(ggml_threadpool* pool, ggml_threadpool* pool_batch) {
  llama_attach_threadpool(ctx_, pool, pool_batch);
}

int32_t DraftModel::WarmUp() { return toolwright::WarmUp(ctx_); }

void DraftModel::Forget(llama_seq_id seq) {
  if (seq < 0 || static_cast<size_t>(seq) >= cached_.size()) return;
  llama_memory_seq_rm(llama_get_memory(ctx_), seq, -1, -1);
  cached_[static_cast<size_t>(seq)].clear();
}

llama_token DraftModel::Pick(int32_t row, DraftGuard& guard, float min_probability) {
  const float* logits = llama_get_logits_ith(ctx_, row);
  if (logits == nullptr) return LLAMA_TOKEN_NULL;
  const int32_t n = llama_vocab_n_tokens(model_->vocab);
  const auto best = static_cast<llama_token>(std::max_element(logits, logits + n) - logits);
  // A guess the draft model is unsure of is rejected more often than not: checking it costs more than it
  // saves.
  float least = -INFINITY;
  if (min_probability > 0) {
    double sum = 0;
    for (int32_t t = 0; t < n; t++) sum += std::exp(static_cast<double>(logits[t] - logits[best]));
    least = logits[best] + static_cast<float>(std::log(min_probability * sum));
    if (logits[best] < least) return LLAMA_TOKEN_NULL;
  }
  if (guard.Allow(best)) return best;
  if (!guard.Checks()) return LLAMA_TOKEN_NULL;
  // The grammar refuses the first choice: the most likely of the next ones it allows.
  order_.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; i++) order_[static_cast<size_t>(i)] = i;
  const size_t k = std::min(kDraftCandidates, order_.size());
  std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(k), order_.end(),
                    [logits](int32_t x, int32_t y) { return logits[x] > logits[y]; });
  for (size_t i = 1; i < k && logits[order_[i]] >= least; i++) {
    if (guard.Allow(order_[i])) return order_[i];
  }
  // None of them: the best the grammar's mask allows (what a greedy target picks under it).
  guard.FillMask(&mask_);
  llama_token pick = LLAMA_TOKEN_NULL;
  for (int32_t t = 0; t < n && static_cast<size_t>(t >> 6) < mask_.size(); t++) {
    if ((mask_[static_cast<size_t>(t >> 6)] >> (t & 63) & 1) != 0 && (pick < 0 || logits[t] > logits[pick]))
      pick = t;
  }
  return pick != LLAMA_TOKEN_NULL && logits[pick] >= least && guard.Allow(pick) ? pick : LLAMA_TOKEN_NULL;
}

bool DraftModel::CatchUp(const DraftJob& job) {
  std::vector<llama_token>& cached = cached_[static_cast<size_t>(job.seq)];
  const std::vector<llama_token>& history = job.history;
  size_t common = 0;
  while (common < cached.size() && common < history.size() && cached[common] == history[common]) common++;
  common = std::min(common, history.size() - 1);  // the last token is decoded with the drafts, for its logits
  if (common < cached.size()) {
    if (!llama_memory_seq_rm(llama_get_memory(ctx_), job.seq, static_cast<llama_pos>(common), -1)) {
      Forget(job.seq);
      common = 0;
    }
    cached.resize(common);
  }
  const size_t end = history.size() - 1;
  for (size_t at = common; at < end; at += static_cast<size_t>(capacity_)) {
    const size_t n = std::min(end - at, static_cast<size_t>(capacity_));
    batch_.n_tokens = 0;
    for (size_t i = 0; i < n; i++) BatchAdd(batch_, history[at + i], at + i, job.seq, false);
    ScopedLogCapture capture;
    if (llama_decode(ctx_, batch_) != 0) {
      Forget(job.seq);
      return false;
    }
    cached.insert(cached.end(), history.begin() + static_cast<std::ptrdiff_t>(at),
                  history.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
  return true;
}

void DraftModel::Draft(std::vector<DraftJob>& jobs, float min_probability) {
  // A batch holds one token per job: groups of at most its capacity.
  const auto group = static_cast<size_t>(std::max<int32_t>(1, capacity_));
  for (size_t first = 0; first < jobs.size(); first += group) {
    DraftGroup(jobs.data() + first, std::min(group, jobs.size() - first), min_probability);
  }
}

void DraftModel::DraftGroup(DraftJob* jobs, size_t count, float min_probability) {
  std::vector<DraftJob*> active;
  for (size_t j = 0; j < count; j++) {
    DraftJob& job = jobs[j];
    const bool known = job.seq >= 0 && static_cast<size_t>(job.seq) < cached_.size();
    if (!known || job.history.empty()) continue;
    job.max_tokens =
        std::min<size_t>(job.max_tokens, n_ctx_ > job.history.size() ? n_ctx_ - job.history.size() : 0);
    if (job.max_tokens > 0 && CatchUp(job)) active.push_back(&job);
  }
  // Each round decodes every active job's last token (its history's, then its latest draft) and picks the
  // next.
  while (!active.empty()) {
    batch_.n_tokens = 0;
    for (DraftJob* job : active) {
      const llama_token last = job->out.empty() ? job->history.back() : job->out.back();
      BatchAdd(batch_, last, cached_[static_cast<size_t>(job->seq)].size(), job->seq, true);
    }
    ScopedLogCapture capture;
    if (llama_decode(ctx_, batch_) != 0) {
      for (DraftJob* job : active) Forget(job->seq);
      return;
    }
    std::vector<DraftJob*> next;
    for (size_t i = 0; i < active.size(); i++) {
      DraftJob& job = *active[i];
      cached_[static_cast<size_t>(job.seq)].push_back(job.out.empty() ? job.history.back() : job.out.back());
      const llama_token token = Pick(static_cast<int32_t>(i), *job.guard, min_probability);
      if (token == LLAMA_TOKEN_NULL) continue;
      job.out.push_back(token);
      if (job.out.size() < job.max_tokens && !llama_vocab_is_eog(model_->vocab, token)) next.push_back(&job);
    }
    active.swap(next);
  }
}

}  // namespace toolwright
