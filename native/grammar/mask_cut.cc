// MaskEngine, part 4: masks through cut states (see CutMask in mask.h).
//
// Why it is exact: a token whose walk from the cut state never meets an exposed state takes the
// same path from the real state (the real stacks have the same top frames and never look below
// them), so the cut state's answer for it is the real one's. The other tokens, those that reach
// the bottom somewhere, are checked one by one against the real state. End-of-generation and
// irregular tokens are always checked against the real state.
#include <algorithm>
#include <cstring>
#include <cstdio>
#include <cstdlib>

#include "mask.h"

namespace toolwright::grammar {

namespace {

inline void set_bit(uint64_t* bits, int32_t id) { bits[id >> 6] |= 1ull << (id & 63); }

// cut_of_'s value for "no cut" (kDead is the map's own "missing").
constexpr uint32_t kNoCut = UINT32_MAX - 5;

}  // namespace

bool MaskEngine::fill_through_cut(uint32_t state, uint64_t* out) {
  const uint32_t cut = cut_of(state);
  if (cut == Npda::kDead) return false;
  const uint32_t slot = cut_mask(cut);
  if (!cut_masks_[slot].usable) {
    cut_of_.assign(state, kNoCut);
    return false;
  }
  const CutMask& m = cut_masks_[slot];
  if (getenv("TW_CUT_DBG")) fprintf(stderr, "CUT state=%u cut=%u stacks=%u uncertain=%zu\n", state, cut, npda_.n_stacks(state), m.uncertain.size());
  unpack(m.allowed, out);
  for (int32_t id : m.uncertain) {
    if (token_allowed(state, PartialUtf8{}, id)) set_bit(out, id);
  }
  const Vocab& v = *vocab_;
  if (npda_.accepting(state)) {
    for (int32_t id : v.eog_tokens()) set_bit(out, id);
  }
  for (int32_t id : v.irregular_tokens()) {
    if (token_allowed(state, PartialUtf8{}, id)) set_bit(out, id);
  }
  return true;
}

// The state's cut (its stacks down to the first frame that does more than end), or kDead where
// the state is a cut itself, is only the finished grammar, or its cut is exposed from the start.
uint32_t MaskEngine::cut_of(uint32_t state) {
  const uint32_t memo = cut_of_.find(state);
  if (memo != FlatMap64::kMissing) return memo == kNoCut ? Npda::kDead : memo;
  uint32_t cut = Npda::kDead;
  const bool finished = npda_.n_stacks(state) == 1 && npda_.stacks(state)[0] == Npda::kEmptyStack;
  if (!npda_.is_truncated(state) && !finished) {
    cut = npda_.truncated_state(state, kMaxCutFrames);
    if (cut == state || npda_.exposed(cut)) cut = Npda::kDead;
  }
  cut_of_.insert(state, cut == Npda::kDead ? kNoCut : cut);
  return cut;
}

uint32_t MaskEngine::cut_mask(uint32_t cut) {
  const uint32_t memo = cut_slot_.find(cut);
  if (memo != FlatMap64::kMissing) return memo;
  const size_t words = vocab_->n_words();
  cut_buf_.assign(words, 0);
  uncertain_.clear();
  uncertain_overflow_ = false;
  token_tops_seen_ = false;
  cut_walk_ = true;
  walk(cut, cut_buf_.data());
  cut_walk_ = false;
  CutMask m;
  std::sort(uncertain_.begin(), uncertain_.end());
  uncertain_.erase(std::unique(uncertain_.begin(), uncertain_.end()), uncertain_.end());
  m.usable = !uncertain_overflow_ && uncertain_.size() <= kMaxUncertain;
  if (m.usable) {
    // A token listed may also have been allowed along another stack: then it needs no check.
    for (int32_t id : uncertain_) {
      if (!((cut_buf_[id >> 6] >> (id & 63)) & 1)) m.uncertain.push_back(id);
    }
    m.allowed = pack(cut_buf_.data());
  }
  const auto slot = static_cast<uint32_t>(cut_masks_.size());
  cut_masks_.push_back(std::move(m));
  cut_slot_.insert(cut, slot);
  return slot;
}

// Every token at or below `node`: the walk reached it in an exposed state.
void MaskEngine::note_uncertain(uint32_t node) {
  const Vocab& v = *vocab_;
  const Vocab::Node& n = v.nodes()[node];
  const uint32_t t_end = v.tok_range_end(n.end), p_end = v.part_range_end(n.end);
  // Past the budget the cut state is not used: stop listing.
  if (uncertain_overflow_ || uncertain_.size() + (t_end - n.tok_begin) + (p_end - n.part_begin) > kMaxUncertain * 4) {
    uncertain_overflow_ = true;
    return;
  }
  for (uint32_t i = n.tok_begin; i < t_end; i++) uncertain_.push_back(v.tokens()[i]);
  for (uint32_t i = n.part_begin; i < p_end; i++) uncertain_.push_back(v.partials()[i].token);
}

bool MaskEngine::chain_exposed(const std::vector<uint32_t>& chain) const {
  return std::any_of(chain.begin(), chain.end(), [this](uint32_t s) { return npda_.exposed(s); });
}

}  // namespace toolwright::grammar
