#include "mask.h"

#include <algorithm>
#include <cstring>

namespace toolwright::grammar {

MaskEngine::MaskEngine(Npda& npda, std::shared_ptr<const Vocab> vocab)
    : npda_(npda),
      vocab_(std::move(vocab)),
      // A token's code points, and one more that a pending partial character may need.
      horizon_(npda.grammar(), static_cast<uint32_t>(vocab_->max_token_cps()) + 1) {}

uint32_t MaskEngine::find_stand_in(uint32_t state) {
  bool moves = false;
  for (uint32_t i = 0; i < npda_.n_stacks(state) && !moves; i++) moves = frames_move(npda_.stacks(state)[i]);
  const uint32_t stand_in = moves ? npda_.within_horizon(state, horizon_) : state;
  const size_t need = std::max(state, stand_in) + size_t{1};
  if (stand_in_of_.size() < need) stand_in_of_.resize(std::max(need, stand_in_of_.size() * 2), Npda::kUnset);
  stand_in_of_[state] = stand_in;
  stand_in_of_[stand_in] = stand_in;
  return stand_in;
}

// Nodes are pushed over their parents, so a stack's answer is its top frame's or its parent's (memoised: a
// walk down to the first known node, then back up).
bool MaskEngine::frames_move(uint32_t stack) {
  constexpr uint8_t kUnknown = 0, kStays = 1, kMoves = 2;
  if (frames_move_.size() < npda_.n_nodes()) frames_move_.resize(npda_.n_nodes() * 2, kUnknown);
  std::vector<uint32_t>& path = path_buf_;
  path.clear();
  uint32_t n = stack;
  while (n != Npda::kEmptyStack && frames_move_[n] == kUnknown) {
    path.push_back(n);
    n = npda_.stack_parent(n);
  }
  uint8_t below = n == Npda::kEmptyStack ? kStays : frames_move_[n];
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const uint32_t pos = npda_.stack_top(*it);
    below = below == kMoves || horizon_.map(pos) != pos ? kMoves : kStays;
    frames_move_[*it] = below;
  }
  return frames_move_[stack] == kMoves;
}

void MaskEngine::clear_cache() {
  drop_masks();
  stand_in_of_.clear();
  frames_move_.clear();
  plan_of_.clear();
  group_of_.clear();
  plans_.clear();
  chains_.clear();
  cut_pool_.clear();
  ranges_pool_.clear();
  split_of_.clear();
  split_pool_.clear();
  uniform_of_.clear();
  self_loop_of_.clear();
  broad_memo_.clear();
}

bool MaskEngine::token_allowed(uint32_t state, PartialUtf8 partial, int32_t token) {
  const Vocab& v = *vocab_;
  if (token < 0 || static_cast<size_t>(token) >= v.size() || state == Npda::kDead) return false;
  if (v.is_eog(token)) return npda_.accepting(state);
  const std::string& piece = v.piece(token);
  if (piece.empty() || piece[0] == '\0') return false;
  const PartialUtf8 tail = decode_utf8(piece, partial, decode_buf_);
  if (tail.n_remain < 0) return false;
  const auto nul = std::find(decode_buf_.begin(), decode_buf_.end(), 0u);
  const size_t len = static_cast<size_t>(nul - decode_buf_.begin());
  const Grammar& g = npda_.grammar();
  uint32_t cur = state;
  for (size_t i = 0; i < len; i++) {
    // A stack topped by a token element decides by id alone while characters remain.
    if (npda_.has_token_tops(cur)) {
      for (uint32_t k = 0; k < npda_.n_stacks(cur); k++) {
        const uint32_t node = npda_.stacks(cur)[k];
        if (node != Npda::kEmptyStack && g.is_token_elem(npda_.stack_top(node)) &&
            g.token_elem_matches(npda_.stack_top(node), token)) {
          return true;
        }
      }
    }
    cur = npda_.step(cur, decode_buf_[i]);
    if (cur == Npda::kDead) return false;
  }
  if (tail.n_remain == 0) return true;
  return npda_.matches_partial(cur, tail);
}

void MaskEngine::fill(uint32_t state, PartialUtf8 partial, uint64_t* out) {
  const Vocab& v = *vocab_;
  const size_t words = v.n_words();
  stats_.masks++;
  if (partial.pending()) {
    // Only tokens that continue the pending character can follow; check them one by one.
    std::memset(out, 0, words * 8);
    if (npda_.accepting(state)) {
      for (int32_t id : v.eog_tokens()) set_bit(out, id);
    }
    for (int32_t id : v.continuation_tokens()) {
      if (!v.is_eog(id) && token_allowed(state, partial, id)) set_bit(out, id);
    }
    return;
  }
  // Truncated (the walk must note its exits) whether or not its stand-in is.
  const bool truncated = npda_.is_truncated(state);
  state = within_horizon(state);
  if (const Cached* hit = cached(state)) {
    stats_.cache_hits++;
    const Cached& c = *hit;
    if (part_depth_ > 0) note_exits(c);  // a part's exits are its whole's
    copy_cached(c, out);
    return;
  }
  if (truncated_masks_ && fill_via_position(state, out)) {
    store(state, out, nullptr);
    return;
  }
  // A part's exits stay listed for the whole it belongs to (decompose()); a mask asked for anew starts
  // afresh.
  if (part_depth_ == 0) exits_.clear();
  const size_t exits_from = exits_.size();
  if (npda_.exposed(state)) exits_.push_back(0);
  const uint64_t visited_before = stats_.nodes_visited;
  const size_t states_before = npda_.n_states();
  compute_fresh(state, out);
  if (!truncated && !npda_.is_truncated(state)) {
    store(state, out, nullptr);
  } else if (keep_truncated(exits_from, stats_.nodes_visited - visited_before +
                                            (npda_.n_states() - states_before) * kStateWork)) {
    // A part's mask serves its whole (through its exits); a whole position's, real states: under a shared
    // frame through the suffix tree of its exits, else by walking below them.
    const bool shared = npda_.shared_cut(state);
    const uint32_t suffixes = shared && part_depth_ == 0 ? build_suffixes() : kNoSuffixes;
    if (shared ? part_depth_ > 0 || suffixes != kNoSuffixes : exits_walkable_) {
      store(state, out, &exit_all_, suffixes, !shared && exits_walkable_);
    }
  }
}

void MaskEngine::preheat(const std::atomic<bool>* stop) {
  auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_acquire); };
  std::vector<uint32_t> level{npda_.initial()}, seen(level), next;
  for (int depth = 1; depth <= kPreheatDepth && seen.size() < kPreheatStates && !stopped(); depth++) {
    next.clear();
    for (uint32_t s : level) {
      if (s == Npda::kDead) continue;
      Npda::Partition& p = npda_.partition(s);
      for (uint32_t j = 0; j < p.breaks.size() && seen.size() < kPreheatStates; j++) {
        const uint32_t t = npda_.successor_in(p, s, j);
        if (t == Npda::kDead || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
        seen.push_back(t);
        next.push_back(t);
      }
    }
    level.swap(next);
  }
  const Stats before = stats_;
  std::vector<uint64_t> out(vocab_->n_words());
  for (uint32_t s : seen) {
    if (stopped()) break;
    if (s != Npda::kDead) fill(s, PartialUtf8{}, out.data());
  }
  warm_positions(stop);
  stats_ = before;
}

bool MaskEngine::has_broad_top(uint32_t state) const {
  const Grammar& g = npda_.grammar();
  for (uint32_t k = 0; k < npda_.n_stacks(state); k++) {
    const uint32_t s = npda_.stacks(state)[k];
    const uint32_t cls = s == Npda::kEmptyStack ? Grammar::kNoClass : g.class_at[npda_.stack_top(s)];
    if (cls != Grammar::kNoClass && g.classes[cls].span >= kSliceMinSpan) return true;
  }
  return false;
}

// Parts of a state worth masking apart: each stack that loops on a broad class by itself, and
// the other stacks together. Returns the index of the part count in split_pool_, or kNoSplit.
uint32_t MaskEngine::split(uint32_t state) {
  uint32_t at = split_of_.find(state);
  if (at != FlatMap64::kMissing) return at;
  at = kNoSplit;
  // Only a stack topped by a broad class can be split off: look for one before planning the
  // whole state (the walk reaches many intermediate states once each; planning them is costly).
  // A state that loops as a whole is split only when its loop is narrow (a hex counter beside a
  // URL path): a stack that loops on a broader class by itself then masks far fewer tokens by walking.
  auto group_span = [&](uint32_t s) {
    const Plan& p = group_only(s);
    return p.group ? set_span(p.rest_set) : uint64_t{0};
  };
  uint64_t whole = 0;
  if (npda_.n_stacks(state) > 1 && has_broad_top(state) && live_span(state) >= kSliceMinSpan &&
      ((whole = group_span(state)) == 0 || whole < kNarrowGroupSpan)) {
    std::vector<uint32_t> broad, rest, one;
    const Grammar& g = npda_.grammar();
    for (uint32_t k = 0; k < npda_.n_stacks(state); k++) {
      const uint32_t s = npda_.stacks(state)[k];
      // Only a stack topped by a broad class can loop on one.
      const uint32_t cls = s == Npda::kEmptyStack ? Grammar::kNoClass : g.class_at[npda_.stack_top(s)];
      bool is_broad = false;
      if (cls != Grammar::kNoClass && g.classes[cls].span >= kSliceMinSpan) {
        one.assign(1, s);
        const uint32_t single = npda_.state_of(one);
        if (group_span(single) > whole) {
          broad.push_back(single);
          is_broad = true;
        }
      }
      if (!is_broad) rest.push_back(s);
    }
    if (!broad.empty()) {
      at = static_cast<uint32_t>(split_pool_.size());
      split_pool_.push_back(static_cast<uint32_t>(broad.size() + (rest.empty() ? 0 : 1)));
      split_pool_.insert(split_pool_.end(), broad.begin(), broad.end());
      if (!rest.empty()) split_pool_.push_back(npda_.state_of(rest));
    }
  }
  split_of_.insert(state, at);
  return at;
}

// A mask is the union of its parts' masks (llama.cpp checks each stack on its own); each part
// goes through the cache.
bool MaskEngine::decompose(uint32_t state, uint64_t* out) {
  const uint32_t at = split(state);
  if (at == kNoSplit) return false;
  const size_t words = vocab_->n_words();
  // One buffer per nesting level, kept: parts decompose in turn.
  if (part_bufs_.size() <= part_depth_) part_bufs_.emplace_back(words);
  uint64_t* part = part_bufs_[part_depth_++].data();  // stays valid when part_bufs_ grows
  std::memset(out, 0, words * 8);
  const uint32_t n = split_pool_[at];
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t part_state = split_pool_[at + 1 + i];
    if (or_cached(part_state, out)) continue;
    fill(part_state, PartialUtf8{}, part);
    for (size_t w = 0; w < words; w++) out[w] |= part[w];
  }
  part_depth_--;
  return true;
}

void MaskEngine::compute_fresh(uint32_t state, uint64_t* out) {
  if (state != Npda::kDead && npda_.n_stacks(state) > 1 && decompose(state, out)) return;
  const Vocab& v = *vocab_;
  std::memset(out, 0, v.n_words() * 8);
  token_tops_seen_ = false;
  if (state == Npda::kDead) return;
  const auto& root = v.nodes()[0];
  // Tokens with no complete code point (a lone lead byte) hang off the root.
  partials_at(root, state, out);
  if (npda_.has_token_tops(state)) token_tops_below(state, 0, out);
  work_.clear();
  if (!try_slice(0, state, out)) expand(0, state, out);
  drain_work(out);
  tokens_apart(state, out);
}

void MaskEngine::drain_work(uint64_t* out) {
  while (!work_.empty()) {
    const Item it = work_.back();
    work_.pop_back();
    expand(it.node, it.state, out);
  }
}

// Tokens outside the prefix tree (the end of the text; tokens with a NUL, checked on their own).
void MaskEngine::tokens_apart(uint32_t state, uint64_t* out) {
  const Vocab& v = *vocab_;
  if (npda_.accepting(state)) {
    for (int32_t id : v.eog_tokens()) set_bit(out, id);
  }
  for (int32_t id : v.irregular_tokens()) {
    if (token_allowed(state, PartialUtf8{}, id)) set_bit(out, id);
  }
}

// Tokens ending in a partial character at `n` (sorted by sequence, so equal ones share a test).
void MaskEngine::partials_at(const Vocab::Node& n, uint32_t state, uint64_t* out) {
  if (!npda_.may_match_partial(state)) return;
  const auto& parts = vocab_->partials();
  PartialUtf8 last{0, -2};
  bool ok = false;
  for (uint32_t i = n.part_begin; i < n.part_own_end; i++) {
    if (!(parts[i].partial == last)) {
      last = parts[i].partial;
      ok = npda_.matches_partial(state, last);
    }
    if (ok) set_bit(out, parts[i].token);
  }
}

// `node` was reached in `state`: take its own tokens, then queue (or slice) what lies below.
void MaskEngine::enter(uint32_t node, uint32_t state, uint64_t* out) {
  const Vocab& v = *vocab_;
  const Vocab::Node& n = v.nodes()[node];
  if (npda_.exposed(state)) {
    // Some stacks finished the cut frames (only truncated states): the rest of a token belongs to the
    // context.
    exits_.push_back(node);
    // A real state walks below the exits of stacks cut over contexts of their own. Under a shared frame, a
    // token ending here is allowed in any context, and the other stacks go on.
    if (!npda_.shared_cut(state)) return;
    state = npda_.unexposed(state);
  }
  for (uint32_t i = n.tok_begin; i < n.tok_own_end; i++) set_bit(out, v.tokens()[i]);
  if (state == Npda::kDead) return;
  state = within_horizon(state);
  if (n.part_begin != n.part_own_end) partials_at(n, state, out);
  if (npda_.has_token_tops(state)) token_tops_below(state, node, out);
  if (node + 1 >= n.end) return;
  if (n.end - node >= kSliceMinNodes) {
    // Below a big subtree: split a mixed state so its broad stacks use their slices.
    const uint32_t at = npda_.n_stacks(state) > 1 ? split(state) : kNoSplit;
    if (at != kNoSplit) {
      for (uint32_t i = 0; i < split_pool_[at]; i++) {
        const uint32_t part = split_pool_[at + 1 + i];
        if (!try_slice(node, part, out)) work_.push_back(Item{node, part});
      }
      return;
    }
    if (try_slice(node, state, out)) return;
  }
  if (n.end - node >= kLoopSliceMinNodes && try_self_loop(node, state, out)) return;
  work_.push_back(Item{node, state});
}

// Steps `state` over each child edge of `node`; a wide node is visited segment by segment of
// the state's code-point partition, so rejected ranges of children are skipped wholesale.
void MaskEngine::expand(uint32_t node, uint32_t state, uint64_t* out, uint32_t skip) {
  const Vocab& v = *vocab_;
  const auto& nodes = v.nodes();
  Npda::Partition& p = npda_.partition(state);
  const Vocab::Node& n = nodes[node];
  if (n.wide != Vocab::kNotWide) {
    const Vocab::WideNode& w = v.wide_nodes()[n.wide];
    const uint32_t* cps = v.wide_child_cps().data();
    const uint32_t* kids = v.wide_child_nodes().data();
    uint32_t i = w.begin;
    while (i < w.end) {
      const uint32_t cp = cps[i];
      const uint32_t seg = cp < 128 ? p.ascii[cp] : Npda::segment_of(p, cp);
      const uint32_t hi = p.seg_end(seg);
      const auto j = static_cast<uint32_t>(std::upper_bound(cps + i, cps + w.end, hi) - cps);
      stats_.nodes_visited++;
      const uint32_t next = npda_.successor_in(p, state, seg);
      if (next != Npda::kDead && next != skip) {
        for (uint32_t k = i; k < j; k++) enter(kids[k], next, out);
      }
      i = j;
    }
    return;
  }
  for (uint32_t c = node + 1; c < n.end; c = nodes[c].end) {
    const uint32_t cp = nodes[c].cp;
    stats_.nodes_visited++;
    const uint32_t next = npda_.successor_in(p, state, cp < 128 ? p.ascii[cp] : Npda::segment_of(p, cp));
    if (next != Npda::kDead && next != skip) enter(c, next, out);
  }
}

// Stacks topped by a token element accept (by id alone) every token that still has code points
// left at `node`, i.e. the tokens strictly below it.
void MaskEngine::token_tops_below(uint32_t state, uint32_t node, uint64_t* out) {
  token_tops_seen_ = true;
  const Vocab& v = *vocab_;
  const Grammar& g = npda_.grammar();
  int32_t only_not = -1;  // the single id excluded by every negated top, if exactly one
  bool not_any = false, all = false;
  std::vector<int32_t> wanted;
  for (uint32_t k = 0; k < npda_.n_stacks(state); k++) {
    const uint32_t s = npda_.stacks(state)[k];
    if (s == Npda::kEmptyStack) continue;
    const uint32_t pos = npda_.stack_top(s);
    if (!g.is_token_elem(pos)) continue;
    const auto id = static_cast<int32_t>(g.elems[pos].value);
    if (g.elems[pos].type == ElemType::Token) {
      wanted.push_back(id);
    } else if (!not_any) {
      not_any = true;
      only_not = id;
    } else if (id != only_not) {
      all = true;
    }
  }
  const auto& nodes = v.nodes();
  const uint32_t end = nodes[node].end;
  auto below = [&](int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= v.size() || v.kind(id) != Vocab::Kind::Regular) return false;
    const uint32_t n = v.token_node(id);
    return n > node && n < end;
  };
  for (int32_t id : wanted) {
    if (below(id)) set_bit(out, id);
  }
  if (!not_any) return;
  const bool exclude =
      !all && below(only_not) && std::find(wanted.begin(), wanted.end(), only_not) == wanted.end();
  if (node == 0) {
    const auto& b = v.below_root_bits();
    for (size_t w = 0; w < b.size(); w++) out[w] |= b[w];
    // Runs before the walk, so nothing else has set this bit yet.
    if (exclude) out[only_not >> 6] &= ~(1ull << (only_not & 63));
    return;
  }
  const uint32_t t_end = v.tok_range_end(end);
  for (uint32_t i = nodes[node].tok_own_end; i < t_end; i++) {
    const int32_t id = v.tokens()[i];
    if (!(exclude && id == only_not)) set_bit(out, id);
  }
  const uint32_t p_end = v.part_range_end(end);
  for (uint32_t i = nodes[node].part_own_end; i < p_end; i++) {
    const int32_t id = v.partials()[i].token;
    if (!(exclude && id == only_not)) set_bit(out, id);
  }
}

}  // namespace toolwright::grammar
