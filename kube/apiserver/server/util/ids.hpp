#pragma once

// Random identifiers the API server hands out: object uids and generateName suffixes.

#include <string>

namespace kueuepp::kube::server {

/// A random (version 4) UUID in its canonical lowercase text form.
std::string new_uid();

/// Five characters from the alphabet kube-apiserver uses for generateName suffixes
/// (consonants and digits that cannot spell words).
std::string name_suffix();

/// `n` random bytes as lowercase hex (bearer tokens).
std::string random_hex(std::size_t n);

}  // namespace kueuepp::kube::server
