// Compiles the Boost.JSON library sources exactly once for the whole program
// (Boost.JSON is used header-only; Debian 12 does not ship a libboost_json).
#include <boost/json/src.hpp>
