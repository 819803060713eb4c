// Held values through sense.hpp: a function held past the rebinding of its
// name, a closure a call returned held and called later (RAII releases
// each), errors as exceptions; listing globals and agents.
#include "host_test.hpp"

#include <string>

static int closures_held_and_called() {
    sense::Runtime rt;
    std::string out;
    rt.capture_output(&out);
    rt.run("c.sns",
           "def make_counter(start):\n"
           "    n = start\n"
           "    def next():\n"
           "        n = n + 1\n"
           "        print(n)\n"
           "        return n\n"
           "    return next\n");
    sense::Held make = rt.hold_global("make_counter");
    rt.run("r.sns", "make_counter = 0\n");
    sense::Held counter = rt.call_and_hold(make, {sense::Value::of(41)});
    CHECK(counter.id() != 0 && counter.id() != make.id());
    CHECK(rt.held_value(counter).type_name() == "Function");
    rt.run("gc.sns", "junk = []\nfor i in range(2000):\n    push(junk, [i])\njunk = nil\n");
    CHECK(rt.call(counter).as_int() == 42);
    CHECK(rt.call(counter).as_int() == 43);
    CHECK(out == "42\n43\n");
    auto e = error_of([&] { rt.call(counter, {sense::Value::of(1)}); });
    CHECK(e && e->status() == SENSE_STATUS_RUNTIME_ERROR);
    uint64_t old = counter.id();
    {
        sense::Held moved = std::move(counter);
        CHECK(counter.id() == 0 && moved.id() == old);
    }  // released here
    sense_value *v = nullptr;
    CHECK(sense_runtime_held_value(rt.get(), old, &v, nullptr) == SENSE_STATUS_NOT_FOUND);
    sense::Held list = rt.hold_value(sense::Value::list({sense::Value::of("a")}));
    CHECK(rt.held_value(list).as_list().at(0).as_string() == "a");
    auto e2 = error_of([&] { rt.hold_global("nothing_here"); });
    CHECK(e2 && e2->status() == SENSE_STATUS_NOT_FOUND);
    return 0;
}

static int globals_and_agents_listed() {
    sense::Runtime rt;
    rt.on_output([](std::string_view) {});
    rt.run("l.sns", "b = 1\ndef a():\n    return 2\nagent w:\n    pause()\n");
    CHECK((rt.global_names() == std::vector<std::string>{"a", "b", "w"}));
    auto agents = rt.agents();
    CHECK(agents.size() == 1 && agents[0].serial == rt.agent("w").serial);
    return 0;
}

int main() {
    return run_tests({TEST(closures_held_and_called), TEST(globals_and_agents_listed)});
}
