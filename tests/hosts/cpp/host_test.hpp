// The small test harness of the C++ host tests (no framework): each test is
// `static int test()` returning 0 on success; CHECK prints file:line and
// returns 1 on failure; error_of runs code that must throw and hands back
// what it threw; start_paused runs a program up to its agent's first
// pause; run_tests runs the tests, reports each, and prints the
// "N passed, N failed" line.
#ifndef SENSE_HOST_TEST_HPP
#define SENSE_HOST_TEST_HPP

#include <sense.hpp>

#include <cstdio>
#include <exception>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,        \
                         __LINE__, #cond);                                     \
            return 1;                                                          \
        }                                                                      \
    } while (0)

// Runs `f`, which should throw an `E`: returns it, or nothing when `f`
// returned (so CHECK(e && ...) fails then). Other exceptions pass through.
template <class E = sense::Error, class F>
std::optional<E> error_of(F &&f) {
    try {
        f();
    } catch (const E &e) {
        return e;
    }
    return std::nullopt;
}

// Whether `text` contains `part`.
inline bool has(const std::string &text, const char *part) {
    return text.find(part) != std::string::npos;
}

// Runs `src` in `rt` as `file` and starts its agent `name`, which must
// pause there: returns the agent (throws, failing the test, otherwise).
inline sense::Agent start_paused(sense::Runtime &rt, const char *file, const char *src,
                                 const char *name) {
    rt.run(file, src);
    sense::Agent a = rt.agent(name);
    if (rt.start(a) != SENSE_AGENT_STATUS_PAUSED) {
        throw std::runtime_error(std::string(name) + " did not pause");
    }
    return a;
}

// One test: its name (for the report) and its function.
struct HostTest {
    const char *name;
    int (*run)();
};
#define TEST(fn) HostTest{#fn, fn}

// Runs every test (an exception escaping one fails it), prints "ok" or
// "FAILED" and its name for each, then "N passed, N failed"; returns the
// exit status for main.
inline int run_tests(std::initializer_list<HostTest> tests) {
    int passed = 0, failed = 0;
    for (const HostTest &t : tests) {
        int r = 1;
        try {
            r = t.run();
        } catch (const std::exception &ex) {
            std::fprintf(stderr, "%s threw: %s\n", t.name, ex.what());
        }
        std::printf("%s %s\n", r == 0 ? "ok    " : "FAILED", t.name);
        std::fflush(stdout);
        (r == 0 ? passed : failed)++;
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

#endif  // SENSE_HOST_TEST_HPP
