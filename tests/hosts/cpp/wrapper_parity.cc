// The C++ wrapper catches up with the C API (issue 28, item 5): resume
// with a Float or a Bool, the default providers, the library version,
// Value::of for every integer type (range-checked), a moved-from Value
// refused, exceptions from the output callback rethrown rather than
// swallowed, and a host function's non-UTF-8 exception text kept.
#include "host_test.hpp"

#include <stdexcept>
#include <string>

static int resume_float_and_bool() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    sense::Agent w = start_paused(rt, "echo.sns",
                                  "agent w:\n    x = 0\n    while true:\n        x = pause(x)\n    "
                                  "    print(type_of(x), x)\n",
                                  "w");
    CHECK(rt.resume_float(w, 2.5) == SENSE_AGENT_STATUS_PAUSED);
    CHECK(rt.pause_reason_float(w).value() == 2.5);
    CHECK(rt.resume_bool(w, true) == SENSE_AGENT_STATUS_PAUSED);
    CHECK(rt.pause_reason_bool(w).value() == true);
    CHECK(out == "Float 2.5\nBool true\n");
    return 0;
}

static int providers_and_version() {
    CHECK(sense::version() == SENSE_VERSION_STRING);
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    const char *src = "model m = inference(\"anthropic\", api_key_env: \"SENSE_CPP_NO_SUCH_KEY\")\n";
    auto e = error_of([&] { rt.run("m.sns", src); });
    CHECK(e && has(e->message(), "unknown provider 'anthropic'"));
    rt.register_default_providers();
    // Registered now: the declaration gets as far as the key check (no
    // request is made).
    auto e2 = error_of([&] { rt.run("m.sns", src); });
    CHECK(e2 && has(e2->message(), "'SENSE_CPP_NO_SUCH_KEY' environment variable"));
    return 0;
}

static int integer_types() {
    long long ll = -5;
    unsigned u = 7;
    size_t z = 9;
    uint64_t big = 1ull << 40;
    short sh = -2;
    CHECK(sense::Value::of(ll).as_int() == -5);
    CHECK(sense::Value::of(u).as_int() == 7);
    CHECK(sense::Value::of(z).as_int() == 9);
    CHECK(sense::Value::of(big).as_int() == (int64_t{1} << 40));
    CHECK(sense::Value::of(sh).as_int() == -2);
    CHECK(sense::Value::of(int64_t{21}).as_int() == 21);
    CHECK(sense::Value::of(3).as_int() == 3);
    CHECK(sense::Value::of(1.5f).as_float() == 1.5);
    CHECK(sense::Value::of(true).kind() == SENSE_VALUE_KIND_BOOL);
    auto e = error_of([&] { sense::Value::of(uint64_t{1} << 63); });
    CHECK(e && e->status() == SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(has(e->message(), "9223372036854775808"));
    return 0;
}

static int moved_from_value_is_an_error() {
    sense::Runtime rt;
    rt.on_output([](std::string_view) {});
    sense::Agent a = start_paused(rt, "a.sns", "agent a:\n    print(pause())\n", "a");
    sense::Value v = sense::Value::of(1);
    sense::Value taken = std::move(v);
    CHECK(!v.valid() && taken.valid());
    // NOLINTNEXTLINE(bugprone-use-after-move): the point of the test
    auto e = error_of([&] { rt.resume(a, v); });
    CHECK(e && e->status() == SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(has(e->message(), "moved-from"));
    // The agent was not resumed with nil behind the host's back.
    CHECK(rt.status(a) == SENSE_AGENT_STATUS_PAUSED);
    auto e2 = error_of([&] { rt.set_global("x", v); });
    CHECK(e2 && e2->status() == SENSE_STATUS_INVALID_ARGUMENT);
    v = sense::Value::of(2);  // assigning makes it usable again
    CHECK(rt.resume(a, v) == SENSE_AGENT_STATUS_COMPLETED);
    return 0;
}

static int output_exceptions_are_rethrown() {
    sense::Runtime rt;
    int calls = 0;
    rt.on_output([&calls](std::string_view text) {
        calls++;
        if (text.find("boom") != std::string_view::npos) throw std::runtime_error("sink full");
    });
    auto e = error_of<std::runtime_error>(
        [&] { rt.run("p.sns", "print(\"ok\")\nprint(\"boom\")\nprint(\"after\")\n"); });
    CHECK(e && std::string(e->what()) == "sink full");
    // Output after the throw was not passed to the sink.
    CHECK(calls == 2);
    // The exception is reported once; the next call runs normally.
    rt.run("q.sns", "print(\"fine\")\n");
    CHECK(calls == 3);
    // From a call of a Sense function, the result is freed and the
    // exception rethrown.
    rt.run("f.sns", "def f():\n    print(\"boom\")\n    return [1, 2]\n");
    auto e2 = error_of<std::runtime_error>([&] { rt.call("f"); });
    CHECK(e2 && std::string(e2->what()) == "sink full");
    return 0;
}

static int input_exceptions_are_rethrown() {
    sense::Runtime rt;
    rt.on_output([](std::string_view) {});
    rt.on_input([]() -> std::optional<std::string> { throw std::logic_error("no terminal"); });
    auto e = error_of<std::logic_error>([&] { rt.run("i.sns", "name = ask_human(\"name?\")\n"); });
    CHECK(e && std::string(e->what()) == "no terminal");
    return 0;
}

static int non_utf8_host_exceptions_are_kept() {
    sense::Runtime rt;
    rt.on_output([](std::string_view) {});
    rt.register_fn("order", 0, [](const std::vector<const sense_value *> &) -> sense::Reply {
        throw std::runtime_error("caf\xe9 failed");
    });
    auto e = error_of([&] { rt.run("o.sns", "x = order()\n"); });
    CHECK(e && e->status() == SENSE_STATUS_RUNTIME_ERROR);
    CHECK(has(e->message(), "caf\xef\xbf\xbd failed"));
    return 0;
}

int main() {
    return run_tests({TEST(resume_float_and_bool), TEST(providers_and_version), TEST(integer_types),
                      TEST(moved_from_value_is_an_error), TEST(output_exceptions_are_rethrown),
                      TEST(input_exceptions_are_rethrown),
                      TEST(non_utf8_host_exceptions_are_kept)});
}
