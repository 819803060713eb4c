// Compiled with `c++ -std=c++17 -fsyntax-only`: sense.h is valid C++
// (cbindgen's cpp_compat wraps the declarations in extern "C").
#include <sense.h>

#include <type_traits>

static_assert(std::is_standard_layout<sense_str>::value, "sense_str is plain data");
static_assert(std::is_standard_layout<sense_agent>::value, "sense_agent is plain data");
static_assert(SENSE_STATUS_OK == 0, "OK is zero");

int main() {
    sense_runtime *rt = nullptr;
    return sense_runtime_new(&rt, nullptr) == SENSE_STATUS_OK ? 0 : 1;
}
