// Small open-addressing hash map from 64-bit keys to 32-bit values: the NPDA interns millions
// of stack nodes and state sets, where std::unordered_map's node allocations dominate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace toolwright::grammar {

class FlatMap64 {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;

  FlatMap64() { rehash(64); }

  uint32_t find(uint64_t key) const {
    size_t i = slot(key);
    while (true) {
      const Entry& e = table_[i];
      if (e.value == kMissing) return kMissing;
      if (e.key == key) return e.value;
      i = (i + 1) & mask_;
    }
  }

  // Inserts key -> value unless present; returns the stored value.
  uint32_t insert(uint64_t key, uint32_t value) {
    if ((size_ + 1) * 4 > table_.size() * 3) rehash(table_.size() * 2);
    size_t i = slot(key);
    while (true) {
      Entry& e = table_[i];
      if (e.value == kMissing) {
        e.key = key;
        e.value = value;
        size_++;
        return value;
      }
      if (e.key == key) return e.value;
      i = (i + 1) & mask_;
    }
  }

  // Sets key -> value, replacing any previous value.
  void assign(uint64_t key, uint32_t value) {
    if ((size_ + 1) * 4 > table_.size() * 3) rehash(table_.size() * 2);
    size_t i = slot(key);
    while (true) {
      Entry& e = table_[i];
      if (e.value == kMissing) {
        e.key = key;
        e.value = value;
        size_++;
        return;
      }
      if (e.key == key) {
        e.value = value;
        return;
      }
      i = (i + 1) & mask_;
    }
  }

  void clear() {
    table_.assign(64, Entry{});
    mask_ = 63;
    size_ = 0;
  }
  size_t size() const { return size_; }
  size_t memory_bytes() const { return table_.size() * sizeof(Entry); }
  // Room for `n` entries without a rehash.
  void reserve(size_t n) {
    size_t want = table_.empty() ? 16 : table_.size();
    while (n * 4 > want * 3) want *= 2;
    if (want != table_.size()) rehash(want);
  }

  static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
  }

 private:
  struct Entry {
    uint64_t key = 0;
    uint32_t value = kMissing;
  };
  std::vector<Entry> table_;
  size_t mask_ = 0;
  size_t size_ = 0;

  size_t slot(uint64_t key) const { return static_cast<size_t>(mix(key)) & mask_; }

  void rehash(size_t n) {
    std::vector<Entry> old;
    old.swap(table_);
    table_.assign(n, Entry{});
    mask_ = n - 1;
    size_ = 0;
    for (const Entry& e : old) {
      if (e.value != kMissing) insert(e.key, e.value);
    }
  }
};

// Map from small dense keys (parser state ids) to 32-bit values: one load per lookup, where FlatMap64 hashes.
class DenseMap32 {
 public:
  static constexpr uint32_t kMissing = FlatMap64::kMissing;

  uint32_t find(uint32_t key) const { return key < values_.size() ? values_[key] : kMissing; }

  // Inserts key -> value unless present; returns the stored value.
  uint32_t insert(uint32_t key, uint32_t value) {
    if (key >= values_.size())
      values_.resize(std::max<size_t>(size_t{key} + 1, values_.size() * 2), kMissing);
    if (values_[key] == kMissing) values_[key] = value;
    return values_[key];
  }

  void clear() { values_.clear(); }
  // Room for keys below `keys` now, so that inserting them later grows nothing.
  void grow_to(size_t keys) {
    if (values_.size() < keys) values_.resize(keys, kMissing);
  }
  size_t memory_bytes() const { return values_.capacity() * 4; }

 private:
  std::vector<uint32_t> values_;
};

// A hash of a list of ids (a FlatMap64 key for interned lists): order and length count.
inline uint64_t hash_list(const uint32_t* v, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  for (size_t i = 0; i < n; i++) h = FlatMap64::mix(h ^ (v[i] + 0x632BE59BD9B4E019ULL * (i + 1)));
  return h;
}

}  // namespace toolwright::grammar
