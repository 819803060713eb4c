// sense::Error::traceback() (issue 28): the Sense frames a failure came
// through, innermost last, for an error in nested calls, a host function
// that throws, and an agent failing after a resume; empty for a syntax
// error.
#include "host_test.hpp"

#include <stdexcept>
#include <string>

static const char *const HEAD = "stack traceback (most recent call last):\n";

static int nested_calls_and_a_throwing_host_function() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    auto e = error_of([&] {
        rt.run("t.sns",
               "def inner(x):\n    return x / 0\ndef outer(x):\n    return inner(x)\nouter(1)\n");
    });
    CHECK(e &&
          e->traceback() == std::string(HEAD) +
                                "  t.sns:5: in <main>\n  t.sns:4: in outer\n  t.sns:2: in inner\n");
    rt.register_fn("boom", 0, [](const std::vector<const sense_value *> &) -> sense::Reply {
        throw std::runtime_error("host exploded");
    });
    auto e2 = error_of([&] { rt.run("h.sns", "def go():\n    boom()\ngo()\n"); });
    CHECK(e2 && has(e2->message(), "host exploded"));
    CHECK(e2->traceback() == std::string(HEAD) + "  h.sns:3: in <main>\n  h.sns:2: in go\n");
    auto e3 = error_of([&] { rt.run("s.sns", "x = (\n"); });
    CHECK(e3 && e3->status() == SENSE_STATUS_SYNTAX_ERROR);
    CHECK(e3->traceback().empty());
    return 0;
}

static int agent_failing_on_resume() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    sense::Agent a = start_paused(
        rt, "a.sns",
        "def check(v):\n    return 1 / v\nagent worker:\n    got = pause(\"n?\")\n    check(got)\n",
        "worker");
    auto e = error_of([&] { rt.resume(a, sense::Value::of(0)); });
    CHECK(e && e->traceback() == std::string(HEAD) + "  a.sns:5: in worker\n  a.sns:2: in check\n");
    return 0;
}

int main() {
    return run_tests(
        {TEST(nested_calls_and_a_throwing_host_function), TEST(agent_failing_on_resume)});
}
