#include "symbol_table.h"

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace toolwright::grammar {

SymbolTable::SymbolTable() : slots_(64), mask_(63) {}

uint32_t SymbolTable::hash_of(std::string_view s) {
  // 8 bytes at a time, multiply-xorshift mixed; the last word overlaps the one before it (names
  // are short ASCII words, most longer than 8 bytes).
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  auto mix_in = [&h](uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  };
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      mix_in(w);
    }
    uint64_t w;
    std::memcpy(&w, p + n - 8, 8);
    mix_in(w);
  } else {
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
    mix_in(w);
  }
  h *= 0xc4ceb9fe1a85ec53ULL;
  return static_cast<uint32_t>(h >> 32);
}

void SymbolTable::reserve(size_t names) {
  size_t n = slots_.size();
  while (names * 4 > n * 3) n *= 2;
  if (n != slots_.size()) rehash(n);
  names_.reserve(names);
  synthesized_.reserve(names);
}

size_t SymbolTable::locate(std::string_view name, uint32_t hash) const {
  size_t i = hash & mask_;
  while (true) {
    const Slot& s = slots_[i];
    if (s.id == kNone) return i;
    if (s.hash == hash && view(s.name) == name) return i;
    i = (i + 1) & mask_;
  }
}

uint32_t SymbolTable::find(std::string_view name) const {
  const uint32_t id = slots_[locate(name, hash_of(name))].id;
  if (id != kNone) return id;
  // "<base>_<id>": a synthesized name when that id was synthesized for that base (the digits as
  // std::to_string writes them: no sign, no leading zero).
  const size_t us = name.rfind('_');
  if (us == std::string_view::npos || us + 1 == name.size()) return kNone;
  const std::string_view digits = name.substr(us + 1);
  if (digits.size() > 1 && digits[0] == '0') return kNone;
  uint32_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return kNone;
  if (n >= names_.size() || !synthesized_[n] || view(names_[n]) != name.substr(0, us)) return kNone;
  return n;
}

std::string SymbolTable::name(uint32_t id) const {
  std::string s(view(names_[id]));
  if (synthesized_[id]) s += "_" + std::to_string(id);
  return s;
}

// Ids are handed out in order: id is always names_.size().
void SymbolTable::assign_name(NameRef ref, bool synthesized) {
  names_.push_back(ref);
  synthesized_.push_back(synthesized ? 1 : 0);
}

uint32_t SymbolTable::add(std::string_view name, uint32_t hash, size_t slot) {
  if (arena_.size() + name.size() > UINT32_MAX) throw std::length_error("grammar rule names exceed 4 GB");
  const NameRef ref{static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(name.size())};
  arena_.append(name);
  const uint32_t id = count_++;
  slots_[slot] = Slot{hash, id, ref};
  assign_name(ref, false);
  if (static_cast<size_t>(count_) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
  return id;
}

uint32_t SymbolTable::intern(std::string_view name) {
  const uint32_t hash = hash_of(name);
  const size_t slot = locate(name, hash);
  if (slots_[slot].id != kNone) return slots_[slot].id;
  return add(name, hash, slot);
}

uint32_t SymbolTable::add_synthesized(NameRef base) {
  assign_name(base, true);
  return count_++;
}

void SymbolTable::rehash(size_t n) {
  std::vector<Slot> old(n);
  old.swap(slots_);
  mask_ = static_cast<uint32_t>(slots_.size() - 1);
  for (const Slot& s : old) {
    if (s.id == kNone) continue;
    size_t i = s.hash & mask_;
    while (slots_[i].id != kNone) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace toolwright::grammar
