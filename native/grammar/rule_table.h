// The parsed rules of a grammar, all in one element array: rule id -> a slice of it. The parser
// writes each finished rule once (no vector per rule); a rule defined again gets a new slice.
// Reads like a std::vector<std::vector<Elem>> (size(), [id], range-for), so the analyses are
// written as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace toolwright::grammar {

enum class ElemType : uint8_t {
  End,           // end of a rule
  Alt,           // start of another alternative
  RuleRef,       // value = rule id
  Char,          // value = code point; first item of a positive class or literal char
  CharNot,       // value = code point; first item of a negated class
  CharRngUpper,  // value = upper bound of a range started by the previous item
  CharAlt,       // value = code point; another item of the current class
  CharAny,       // '.'
  Token,         // value = token id (<[id]> or <text>)
  TokenNot,      // value = token id (!<[id]>)
};

struct Elem {
  ElemType type;
  uint32_t value;
};

// A read-only run of elements (one rule, or one stored copy of it).
class ElemSpan {
 public:
  ElemSpan(const Elem* begin, const Elem* end) : begin_(begin), end_(end) {}
  const Elem* begin() const { return begin_; }
  const Elem* end() const { return end_; }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }
  bool empty() const { return begin_ == end_; }
  const Elem& operator[](size_t i) const { return begin_[i]; }

 private:
  const Elem* begin_;
  const Elem* end_;
};

class RuleTable {
 public:
  size_t size() const { return offset_.size(); }
  bool empty() const { return offset_.empty(); }
  // Rule `id`; empty when the id was never defined.
  ElemSpan operator[](size_t id) const {
    const Elem* base = elems_.data() + offset_[id];
    return ElemSpan(base, base + length_[id]);
  }
  // Grows to `n` ids; new ids are undefined.
  void resize(size_t n) {
    offset_.resize(n, 0);
    length_.resize(n, 0);
  }
  // Rule `id` := elements [begin, end) (which must not point into this table).
  void set(size_t id, const Elem* begin, const Elem* end) {
    if (size() <= id) resize(id + 1);
    offset_[id] = static_cast<uint32_t>(elems_.size());
    length_[id] = static_cast<uint32_t>(end - begin);
    elems_.insert(elems_.end(), begin, end);
  }
  // Elements stored, redefined rules' old copies included.
  size_t stored() const { return elems_.size(); }
  // Empties the table, keeping its buffers (a reused table allocates nothing).
  void clear() {
    elems_.clear();
    offset_.clear();
    length_.clear();
  }
  size_t memory_bytes() const {
    return elems_.capacity() * sizeof(Elem) + (offset_.capacity() + length_.capacity()) * sizeof(uint32_t);
  }

 private:
  std::vector<Elem> elems_;
  std::vector<uint32_t> offset_;  // id -> first element in elems_
  std::vector<uint32_t> length_;  // id -> element count (0: undefined)
};

}  // namespace toolwright::grammar
