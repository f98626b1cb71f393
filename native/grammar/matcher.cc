#include "matcher.h"

#include <cstring>

namespace toolwright::grammar {

namespace {
// Past this much NPDA memory the matcher keeps only the states it still needs.
#ifdef TOOLWRIGHT_GRAMMAR_NPDA_BUDGET
constexpr size_t kNpdaBudgetBytes = TOOLWRIGHT_GRAMMAR_NPDA_BUDGET;  // tests force compaction
#else
constexpr size_t kNpdaBudgetBytes = 256u << 20;
#endif
}  // namespace

Matcher::Matcher(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const Vocab> vocab, LazyOptions lazy,
                 bool warm_up)
    : grammar_(std::move(grammar)), vocab_(std::move(vocab)), lazy_(std::move(lazy)), watcher_(lazy_) {
  npda_ = std::make_unique<Npda>(grammar_);
  masks_ = std::make_unique<MaskEngine>(*npda_, vocab_);
  // Its slices and first masks are computed off this thread, until the engine is first used.
  if (warm_up) warming_ = start_warmup(*grammar_, *vocab_, *npda_, *masks_);
  reset();
}

Matcher::Matcher(std::shared_ptr<EnginePool> pool, LazyOptions lazy, const TriggerWatcher& watcher)
    : grammar_(pool->grammar()),
      vocab_(pool->vocab()),
      lazy_(std::move(lazy)),
      watcher_(watcher),
      pool_(std::move(pool)) {
  Engine e = pool_->checkout();
  npda_ = std::move(e.npda);
  masks_ = std::move(e.masks);
  warming_ = std::move(e.warming);
  reset();  // reads only the initial state, set before any warm-up started
}

Matcher::~Matcher() {
  settle();
  if (pool_ && npda_ && masks_) {
    Engine e;
    e.npda = std::move(npda_);
    e.masks = std::move(masks_);
    pool_->give_back(std::move(e));
  }
}

void Matcher::settle() const {
  if (!warming_) return;
  warming_->settle();
  warming_.reset();
}

bool Matcher::await_warmup() const {
  if (!warming_) return false;
  warming_->wait();
  return true;
}

Matcher::Matcher(const Matcher& o)
    : grammar_(o.grammar_), vocab_(o.vocab_), lazy_(o.lazy_), watcher_(o.watcher_), pool_(o.pool_) {
  npda_ = std::make_unique<Npda>(o.npda());
  masks_ = std::make_unique<MaskEngine>(*npda_, vocab_);
  state_ = o.state_;
  partial_ = o.partial_;
  awaiting_ = o.awaiting_;
  buffer_ = o.buffer_;
  positions_ = o.positions_;
  history_ = o.history_;
}

void Matcher::reset() {
  state_ = npda_->initial();
  partial_ = PartialUtf8{};
  awaiting_ = lazy_.lazy;
  buffer_.clear();
  positions_.clear();
  history_.clear();
}

void Matcher::restore(const Snapshot& s) {
  state_ = s.state;
  partial_ = s.partial;
  awaiting_ = s.awaiting;
  buffer_.resize(s.buffer_len);
  positions_.resize(s.positions_len);
}

bool Matcher::is_accepting() const { return awaiting_ || npda().accepting(state_); }

void Matcher::fill_mask(uint64_t* bits) {
  if (awaiting_) {
    const size_t n = vocab_->size();
    std::memset(bits, 0xFF, mask_words() * 8);
    if (n % 64) bits[n / 64] = (1ull << (n % 64)) - 1;
    return;
  }
  masks().fill(state_, partial_, bits);
}

bool Matcher::token_allowed(int32_t token) {
  if (awaiting_) return token >= 0 && static_cast<size_t>(token) < vocab_->size();
  return masks().token_allowed(state_, partial_, token);
}

bool Matcher::advance(uint32_t& state, PartialUtf8& partial, int32_t token, std::string_view piece) {
  Npda& n = npda();
  const PartialUtf8 tail = decode_utf8(piece, partial, cps_);
  // Stacks waiting for a token element take the whole token by id; the others read its
  // characters (stacks that meet a token element mid-token, or are complete, drop out).
  uint32_t by_id = n.step_token(state, token);
  // Text that is not well-formed UTF-8 leaves no character stack alive.
  uint32_t by_chars = tail.n_remain < 0 ? Npda::kDead : n.char_tops_only(state);
  for (uint32_t cp : cps_) {
    if (by_chars == Npda::kDead) break;
    by_chars = n.step(by_chars, cp);
  }
  const uint32_t next = n.merge(by_id, by_chars);
  if (next == Npda::kDead) return false;
  state = next;
  partial = tail;
  return true;
}

bool Matcher::accept(int32_t token) {
  if (token < 0 || static_cast<size_t>(token) >= vocab_->size()) return false;
  const Snapshot before = snapshot();
  if (awaiting_) {
    if (!accept_waiting(token)) {
      restore(before);
      return false;
    }
  } else if (vocab_->is_eog(token)) {
    if (!npda().accepting(state_)) return false;
  } else if (!advance(state_, partial_, token, vocab_->piece(token))) {
    return false;
  }
  history_.push_back(before);
  maybe_compact();
  return true;
}

bool Matcher::accept_waiting(int32_t token) {
  const std::string& piece = vocab_->piece(token);
  if (watcher_.is_trigger_token(token)) {
    awaiting_ = false;
    return advance(state_, partial_, token, piece);
  }
  const size_t appended_at = buffer_.size();
  positions_.push_back(BufferedToken{token, buffer_.size(), buffer_.size() + piece.size()});
  buffer_ += piece;
  const auto start = watcher_.find(buffer_, appended_at);
  if (!start) return true;
  awaiting_ = false;
  // Replay the buffered tokens from the trigger on (the first one possibly cut).
  for (const BufferedToken& t : positions_) {
    if (t.end <= *start) continue;
    const size_t from = t.begin < *start ? *start : t.begin;
    if (!advance(state_, partial_, t.token, std::string_view(buffer_).substr(from, t.end - from)))
      return false;
  }
  return true;
}

bool Matcher::accept_bytes(std::string_view bytes) {
  const Snapshot before = snapshot();
  if (awaiting_) {
    // Raw text counts as generated text for triggers, with no token of its own.
    const size_t appended_at = buffer_.size();
    positions_.push_back(BufferedToken{-1, buffer_.size(), buffer_.size() + bytes.size()});
    buffer_.append(bytes.data(), bytes.size());
    const auto start = watcher_.find(buffer_, appended_at);
    if (start) {
      awaiting_ = false;
      if (!accept_bytes(std::string_view(buffer_).substr(*start))) {
        restore(before);
        return false;
      }
      history_.pop_back();  // the nested call recorded a step; this call is the one step
    }
    history_.push_back(before);
    return true;
  }
  const PartialUtf8 tail = decode_utf8(bytes, partial_, cps_);
  if (tail.n_remain < 0) return false;  // not well-formed UTF-8
  uint32_t cur = state_;
  for (uint32_t cp : cps_) {
    cur = npda().step(cur, cp);
    if (cur == Npda::kDead) return false;
  }
  state_ = cur;
  partial_ = tail;
  history_.push_back(before);
  maybe_compact();
  return true;
}

bool Matcher::rollback(size_t n) {
  if (n > history_.size()) return false;
  if (n == 0) return true;
  const Snapshot s = history_[history_.size() - n];
  history_.resize(history_.size() - n);
  restore(s);
  return true;
}

void Matcher::maybe_compact() {
  if (npda().memory_bytes() < kNpdaBudgetBytes) return;
  std::vector<uint32_t*> live{&state_};
  for (Snapshot& s : history_) live.push_back(&s.state);
  masks().clear_cache();
  npda().compact(live);
}

}  // namespace toolwright::grammar
