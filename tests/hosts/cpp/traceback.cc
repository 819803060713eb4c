// sense::Error::traceback() (issue 28): the Sense frames a failure came
// through, innermost last, for an error in nested calls, a host function
// that throws, and an agent failing after a resume; empty for a syntax
// error.
#include <sense.hpp>

#include <cstdio>
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

static const char *const HEAD = "stack traceback (most recent call last):\n";

static int nested_calls_and_a_throwing_host_function() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    try {
        rt.run("t.sns", "def inner(x):\n    return x / 0\ndef outer(x):\n    return inner(x)\nouter(1)\n");
        return 1;
    } catch (const sense::Error &e) {
        CHECK(e.traceback() == std::string(HEAD) +
                                   "  t.sns:5: in <main>\n  t.sns:4: in outer\n  t.sns:2: in inner\n");
    }
    rt.register_fn("boom", 0, [](const std::vector<const sense_value *> &) -> sense::Reply {
        throw std::runtime_error("host exploded");
    });
    try {
        rt.run("h.sns", "def go():\n    boom()\ngo()\n");
        return 1;
    } catch (const sense::Error &e) {
        CHECK(e.message().find("host exploded") != std::string::npos);
        CHECK(e.traceback() == std::string(HEAD) + "  h.sns:3: in <main>\n  h.sns:2: in go\n");
    }
    try {
        rt.run("s.sns", "x = (\n");
        return 1;
    } catch (const sense::Error &e) {
        CHECK(e.status() == SENSE_STATUS_SYNTAX_ERROR);
        CHECK(e.traceback().empty());
    }
    return 0;
}

static int agent_failing_on_resume() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.run("a.sns", "def check(v):\n    return 1 / v\nagent worker:\n    got = pause(\"n?\")\n    check(got)\n");
    sense::Agent a = rt.agent("worker");
    CHECK(rt.start(a) == SENSE_AGENT_STATUS_PAUSED);
    try {
        rt.resume(a, sense::Value::of(0));
        return 1;
    } catch (const sense::Error &e) {
        CHECK(e.traceback() == std::string(HEAD) + "  a.sns:5: in worker\n  a.sns:2: in check\n");
    }
    return 0;
}

int main() {
    int failed = 0;
    failed += nested_calls_and_a_throwing_host_function();
    failed += agent_failing_on_resume();
    std::printf("%d passed, %d failed\n", 2 - failed, failed);
    return failed == 0 ? 0 : 1;
}
