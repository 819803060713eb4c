// sense.hpp — a header-only C++17 wrapper over libsense (include/sense.h).
//
//   #include <sense.hpp>
//   sense::Runtime rt;
//   rt.run("main.sns", "agent a:\n    n = pause(\"n?\")\n    print(n * 2)\n");
//   auto a = rt.agent("a");
//   rt.start(a);
//   rt.resume(a, sense::Value::of(int64_t{21}));     // prints 42
//
// - RAII: Runtime, Value, Config, PauseHandle and AgentHold own their C
//   handles and free them in their destructors (moves transfer ownership).
// - Errors: every failing call throws sense::Error (status, class, message,
//   line, column; what() is the rendered diagnostic).
// - Host functions are std::function objects; an exception thrown by one
//   becomes a SenseRuntimeError in the calling Sense code (its what(),
//   with bytes that are not UTF-8 replaced by U+FFFD).
// - An exception thrown by the output or input callback is kept and
//   rethrown, unchanged, when the Runtime call that ran the code returns
//   (output after it is dropped until then).
// - A moved-from Value is empty: using it throws sense::Error
//   (SENSE_STATUS_INVALID_ARGUMENT) instead of passing nil.
// - Snapshots are std::vector<uint8_t>.
//
// Threads: as for the C API — use a Runtime from one thread at a time;
// PauseHandle::request may be called from any thread.
#ifndef SENSE_HPP
#define SENSE_HPP

#include <sense.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace sense {

/// A borrowed libsense string as a string_view.
inline std::string_view view(sense_str s) noexcept { return {s.ptr ? s.ptr : "", s.len}; }

/// The version of the libsense library in use, e.g. "0.1.0" (compare with
/// SENSE_VERSION_STRING, the version this header belongs to).
inline std::string_view version() noexcept { return view(sense_version()); }

/// A failed libsense call, with the details of its sense_error copied.
class Error : public std::runtime_error {
public:
    /// A failure found by the wrapper itself (no Sense class).
    Error(sense_status status, const std::string &message)
        : std::runtime_error(message),
          status_(status),
          class_("SenseError"),
          message_(message),
          line_(0),
          column_(0) {}
    Error(sense_status status, const sense_error *raw)
        : std::runtime_error(raw ? std::string(view(sense_error_rendered(raw)))
                                 : std::string("libsense call failed")),
          status_(status),
          class_(raw ? view(sense_error_class(raw)) : std::string_view("SenseError")),
          message_(raw ? view(sense_error_message(raw)) : std::string_view()),
          line_(sense_error_line(raw)),
          column_(sense_error_column(raw)),
          traceback_(raw ? view(sense_error_traceback(raw)) : std::string_view()) {}
    /// The status the call returned.
    sense_status status() const noexcept { return status_; }
    /// The Sense error class, e.g. "SenseRuntimeError".
    const std::string &class_name() const noexcept { return class_; }
    /// The message as Sense shows it.
    const std::string &message() const noexcept { return message_; }
    /// 1-based line (0 when unknown).
    uint32_t line() const noexcept { return line_; }
    /// 1-based column (0 when unknown).
    uint32_t column() const noexcept { return column_; }
    /// The Sense stack traceback (sense_error_traceback): "stack traceback
    /// (most recent call last):" and one "  FILE:LINE: in FUNCTION" line per
    /// frame, innermost last; empty when no Sense code ran.
    const std::string &traceback() const noexcept { return traceback_; }

private:
    sense_status status_;
    std::string class_, message_;
    uint32_t line_, column_;
    std::string traceback_;
};

namespace detail {
/// A std::unique_ptr deleter calling the handle's sense_X_free.
template <auto Free>
struct Deleter {
    template <typename T>
    void operator()(T *p) const noexcept { Free(p); }
};
using ErrorDeleter = Deleter<sense_error_free>;
using ValueDeleter = Deleter<sense_value_free>;
using RuntimeDeleter = Deleter<sense_runtime_free>;
using BytesDeleter = Deleter<sense_bytes_free>;
using ConfigDeleter = Deleter<sense_config_free>;
using PauseHandleDeleter = Deleter<sense_pause_handle_free>;
}  // namespace detail

/// Runs a C call that takes a trailing `sense_error **`; throws on failure.
template <typename F>
void check(F &&call) {
    sense_error *raw = nullptr;
    sense_status st = call(&raw);
    std::unique_ptr<sense_error, detail::ErrorDeleter> owned(raw);
    if (st != SENSE_STATUS_OK) throw Error(st, raw);
}

/// Like check(), but returns false instead of throwing for `absent`.
template <typename F>
bool check_or(sense_status absent, F &&call) {
    sense_error *raw = nullptr;
    sense_status st = call(&raw);
    std::unique_ptr<sense_error, detail::ErrorDeleter> owned(raw);
    if (st == absent) return false;
    if (st != SENSE_STATUS_OK) throw Error(st, raw);
    return true;
}

namespace detail {
/// A new C object from `make(T **out, sense_error **)`; throws on failure.
template <typename T, typename F>
T *made(F &&make) {
    T *out = nullptr;
    check([&](sense_error **e) { return make(&out, e); });
    return out;
}
}  // namespace detail

/// An owned Sense value (a deep copy, independent of any runtime).
class Value {
public:
    /// nil.
    Value() : v_(sense_value_new_nil()) {}
    /// Takes ownership of a value from the C API.
    explicit Value(sense_value *owned) noexcept : v_(owned) {}
    Value(const Value &other) : v_(nullptr) {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_value_clone(other.get(), &v, e); });
        v_.reset(v);
    }
    Value(Value &&) noexcept = default;
    Value &operator=(Value other) noexcept {
        v_.swap(other.v_);
        return *this;
    }

    static Value nil() { return Value(); }
    /// An Int from any integer type (int, long long, unsigned, size_t,
    /// uint64_t, …; not bool or the character types). An unsigned value
    /// above INT64_MAX throws sense::Error (SENSE_STATUS_INVALID_ARGUMENT).
    template <typename T,
              std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                   !std::is_same_v<T, char> && !std::is_same_v<T, wchar_t> &&
                                   !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>,
                               int> = 0>
    static Value of(T i) {
        if constexpr (std::is_unsigned_v<T>) {
            if (static_cast<uint64_t>(i) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                throw Error(SENSE_STATUS_INVALID_ARGUMENT,
                            "sense::Value::of: " + std::to_string(i) +
                                " does not fit a Sense Int (64-bit signed)");
        }
        return Value(sense_value_new_int(static_cast<int64_t>(i)));
    }
    static Value of(double f) { return Value(sense_value_new_float(f)); }
    static Value of(float f) { return of(static_cast<double>(f)); }
    static Value of(bool b) { return Value(sense_value_new_bool(b)); }
    static Value of(std::string_view s) {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_value_new_string(s.data(), s.size(), &v, e); });
        return Value(v);
    }
    static Value of(const char *s) { return of(std::string_view(s)); }
    static Value of(const std::string &s) { return of(std::string_view(s)); }
    /// A value naming agent `a`: passed into the runtime the agent
    /// belongs to (call argument, global, resume value, …), Sense sees the
    /// agent itself; another runtime refuses it (Error, RUNTIME_ERROR).
    static Value of(sense_agent a) { return Value(sense_value_new_agent(a)); }
    /// A List of copies of `items`.
    static Value list(const std::vector<Value> &items) {
        Value l(sense_value_new_list());
        for (const Value &it : items) l.push(it);
        return l;
    }
    /// A Map of copies of `entries`, in this order (keys: String, Int or
    /// Bool; a repeated key keeps its first place and its last value).
    static Value map(const std::vector<std::pair<Value, Value>> &entries = {}) {
        Value m(sense_value_new_map());
        for (const auto &entry : entries) m.set(entry.first, entry.second);
        return m;
    }

    /// The C value (borrowed). Throws sense::Error for a moved-from Value,
    /// which holds none (the C API would read NULL as nil).
    const sense_value *get() const {
        if (!v_)
            throw Error(SENSE_STATUS_INVALID_ARGUMENT,
                        "use of a moved-from sense::Value (it holds no value)");
        return v_.get();
    }
    /// False for a moved-from Value.
    bool valid() const noexcept { return v_ != nullptr; }
    sense_value_kind kind() const {
        sense_value_kind k{};
        check([&](sense_error **e) { return sense_value_get_kind(get(), &k, e); });
        return k;
    }
    bool is_nil() const { return kind() == SENSE_VALUE_KIND_NIL; }
    bool is_agent() const { return kind() == SENSE_VALUE_KIND_AGENT; }
    std::string type_name() const {
        sense_str s{};
        check([&](sense_error **e) { return sense_value_type_name(get(), &s, e); });
        return std::string(view(s));
    }
    bool as_bool() const {
        bool b = false;
        check([&](sense_error **e) { return sense_value_as_bool(get(), &b, e); });
        return b;
    }
    int64_t as_int() const {
        int64_t i = 0;
        check([&](sense_error **e) { return sense_value_as_int(get(), &i, e); });
        return i;
    }
    double as_float() const {
        double f = 0;
        check([&](sense_error **e) { return sense_value_as_float(get(), &f, e); });
        return f;
    }
    /// The agent this value holds (found in a call result, a pause reason,
    /// a host function's argument, a list item), to drive with the
    /// Runtime it came from. Throws Error (INVALID_ARGUMENT) for other kinds.
    sense_agent as_agent() const {
        sense_agent a{};
        check([&](sense_error **e) { return sense_value_as_agent(get(), &a, e); });
        return a;
    }
    /// A String's text (or an opaque value's or an agent's printed form).
    std::string as_string() const {
        sense_str s{};
        check([&](sense_error **e) { return sense_value_as_string(get(), &s, e); });
        return std::string(view(s));
    }
    /// A List's items, copied.
    std::vector<Value> as_list() const {
        size_t n = 0;
        check([&](sense_error **e) { return sense_value_list_len(get(), &n, e); });
        std::vector<Value> out;
        out.reserve(n);
        for (size_t i = 0; i < n; i++) {
            const sense_value *item = nullptr;
            check([&](sense_error **e) { return sense_value_list_get(get(), i, &item, e); });
            out.push_back(copy_of(item));
        }
        return out;
    }
    bool is_map() const { return kind() == SENSE_VALUE_KIND_MAP; }
    /// A Map's entries in insertion order, copied.
    std::vector<std::pair<Value, Value>> as_map() const {
        size_t n = 0;
        check([&](sense_error **e) { return sense_value_map_len(get(), &n, e); });
        std::vector<std::pair<Value, Value>> out;
        out.reserve(n);
        for (size_t i = 0; i < n; i++) {
            const sense_value *k = nullptr, *v = nullptr;
            check([&](sense_error **e) { return sense_value_map_key(get(), i, &k, e); });
            check([&](sense_error **e) { return sense_value_map_value(get(), i, &v, e); });
            out.emplace_back(copy_of(k), copy_of(v));
        }
        return out;
    }
    /// A copy of the value this Map holds under `key`; empty when it has
    /// no such key. Throws sense::Error for a value that is not a Map.
    std::optional<Value> get(const Value &key) const {
        const sense_value *k = key.get();
        const sense_value *v = nullptr;
        if (!check_or(SENSE_STATUS_NOT_FOUND,
                      [&](sense_error **e) { return sense_value_map_get(get(), k, &v, e); }))
            return std::nullopt;
        return copy_of(v);
    }
    /// Stores a copy of `value` under `key` (a String, Int or Bool) in this
    /// Map: a new key goes last, an existing one keeps its place.
    void set(const Value &key, const Value &value) {
        get();  // throws for a moved-from map
        const sense_value *k = key.get();
        const sense_value *v = value.get();
        check([&](sense_error **e) { return sense_value_map_set(v_.get(), k, v, e); });
    }
    /// Appends a copy of `item` to this List.
    void push(const Value &item) {
        get();  // throws for a moved-from list
        const sense_value *it = item.get();
        check([&](sense_error **e) { return sense_value_list_push(v_.get(), it, e); });
    }

private:
    /// An owned copy of a borrowed C value.
    static Value copy_of(const sense_value *borrowed) {
        sense_value *copy = nullptr;
        check([&](sense_error **e) { return sense_value_clone(borrowed, &copy, e); });
        return Value(copy);
    }

    std::unique_ptr<sense_value, detail::ValueDeleter> v_;
};

/// Limits for a new Runtime (see sense_config_* in sense.h).
class Config {
public:
    Config() : c_(detail::made<sense_config>(sense_config_new)) {}
    Config &max_depth(size_t n) { return set(sense_config_set_max_depth, n); }
    /// 0: unlimited.
    Config &max_steps(uint64_t n) { return set(sense_config_set_max_steps, n); }
    Config &max_string_len(size_t bytes) { return set(sense_config_set_max_string_len, bytes); }
    Config &max_array_len(size_t n) { return set(sense_config_set_max_array_len, n); }
    /// The heap ceiling in bytes.
    Config &max_heap(size_t bytes) { return set(sense_config_set_max_heap, bytes); }
    Config &dry_run(bool on) { return set(sense_config_set_dry_run, on); }
    const sense_config *get() const noexcept { return c_.get(); }

private:
    /// Runs a sense_config_set_* setter on this configuration.
    template <typename Setter, typename N>
    Config &set(Setter setter, N n) {
        check([&](sense_error **e) { return setter(c_.get(), n, e); });
        return *this;
    }

    std::unique_ptr<sense_config, detail::ConfigDeleter> c_;
};

/// An agent id (plain data; see sense_agent).
using Agent = sense_agent;

/// One call of a host function: its arguments (borrowed for the call) and
/// the agent whose code made it, if any.
class Call {
public:
    explicit Call(sense_call *raw) : raw_(raw) {
        size_t n = 0;
        sense_call_arg_count(raw, &n, nullptr);
        args_.resize(n);
        for (size_t i = 0; i < n; i++) sense_call_arg(raw, i, &args_[i], nullptr);
    }
    /// The arguments, borrowed for the call.
    const std::vector<const sense_value *> &args() const noexcept { return args_; }
    /// A copy of argument `i`.
    Value arg(size_t i) const {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_value_clone(args_.at(i), &v, e); });
        return Value(v);
    }
    /// The calling agent; empty when called from outside agents.
    std::optional<Agent> agent() const {
        Agent a{};
        if (sense_call_agent(raw_, &a, nullptr) != SENSE_STATUS_OK) return std::nullopt;
        return a;
    }

private:
    sense_call *raw_;
    std::vector<const sense_value *> args_;
};

/// What a host function answers: a value, or (suspend) a pause reason.
struct Reply {
    Value value;
    bool suspend = false;
};

/// A host function over plain arguments.
using HostFn = std::function<Reply(const std::vector<const sense_value *> &)>;
/// A host function that also sees its Call (e.g. the calling agent).
using CallFn = std::function<Reply(const Call &)>;

/// Asks an agent to pause from any thread (see sense_pause_handle).
class PauseHandle {
public:
    explicit PauseHandle(sense_pause_handle *owned) noexcept : h_(owned) {}
    /// True if this made a new request; false if one was pending or the
    /// agent has finished. Throws sense::Error (NOT_FOUND) once the
    /// runtime was freed.
    bool request() const {
        bool newly = false;
        check([&](sense_error **e) { return sense_pause_handle_request(h_.get(), &newly, e); });
        return newly;
    }
    bool is_requested() const {
        bool r = false;
        check([&](sense_error **e) { return sense_pause_handle_is_requested(h_.get(), &r, e); });
        return r;
    }

private:
    std::unique_ptr<sense_pause_handle, detail::PauseHandleDeleter> h_;
};

class Runtime;

/// Keeps an agent alive while it exists (sense_agent_retain / _release).
/// Must not outlive its Runtime.
class AgentHold {
public:
    AgentHold(sense_runtime *rt, Agent a) : rt_(rt), a_(a) {
        check([&](sense_error **e) { return sense_agent_retain(rt_, a_, e); });
    }
    AgentHold(const AgentHold &) = delete;
    AgentHold &operator=(const AgentHold &) = delete;
    AgentHold(AgentHold &&o) noexcept : rt_(std::exchange(o.rt_, nullptr)), a_(o.a_) {}
    ~AgentHold() {
        if (rt_) sense_agent_release(rt_, a_, nullptr);
    }
    Agent agent() const noexcept { return a_; }

private:
    sense_runtime *rt_;
    Agent a_;
};

/// A value the runtime holds for the host (sense_runtime_hold_global /
/// sense_runtime_hold_value): any value — a function or closure included —
/// kept alive until this object is destroyed, then released. Call it with
/// Runtime::call(held, args). Must not outlive its Runtime.
class Held {
public:
    Held(sense_runtime *rt, uint64_t id) noexcept : rt_(rt), id_(id) {}
    Held(const Held &) = delete;
    Held &operator=(const Held &) = delete;
    Held(Held &&o) noexcept : rt_(std::exchange(o.rt_, nullptr)), id_(o.id_) {}
    Held &operator=(Held &&o) noexcept {
        if (this != &o) {
            reset();
            rt_ = std::exchange(o.rt_, nullptr);
            id_ = o.id_;
        }
        return *this;
    }
    ~Held() { reset(); }
    /// The C id (0 for a moved-from Held).
    uint64_t id() const noexcept { return rt_ ? id_ : 0; }

private:
    void reset() noexcept {
        if (rt_) sense_runtime_release_held(rt_, id_, nullptr);
        rt_ = nullptr;
    }
    sense_runtime *rt_;
    uint64_t id_;
};

/// A Sense runtime and the host state of its callbacks.
class Runtime {
public:
    Runtime() : rt_(detail::made<sense_runtime>(sense_runtime_new)) {}
    explicit Runtime(const Config &config)
        : rt_(detail::made<sense_runtime>([&](sense_runtime **r, sense_error **e) {
              return sense_runtime_new_with_config(config.get(), r, e);
          })) {}

    /// The C runtime (borrowed).
    sense_runtime *get() const noexcept { return rt_.get(); }

    /// Sends program output to `sink` (called with each piece of text). An
    /// exception `sink` throws is rethrown by the Runtime call that was
    /// running code (run, call, start, resume, …) when it returns; the
    /// output of that call after the throw is dropped.
    void on_output(std::function<void(std::string_view)> sink) {
        struct State {
            std::function<void(std::string_view)> fn;
            std::shared_ptr<std::exception_ptr> pending;
        };
        auto *state = new State{std::move(sink), pending_};
        check([&](sense_error **e) {
            return sense_runtime_set_output(
                get(),
                [](void *ud, sense_str text) {
                    auto *s = static_cast<State *>(ud);
                    if (*s->pending) return;
                    try {
                        s->fn(view(text));
                    } catch (...) {
                        *s->pending = std::current_exception();
                    }
                },
                state, [](void *ud) { delete static_cast<State *>(ud); }, e);
        });
    }
    /// Appends program output to `*sink` (which must outlive the runtime).
    void capture_output(std::string *sink) {
        on_output([sink](std::string_view text) { sink->append(text); });
    }
    /// Supplies `ask_human` input outside agents: return a line, or nullopt
    /// at end of input. An exception `source` throws ends the input and is
    /// rethrown when the running Runtime call returns (as for on_output).
    void on_input(std::function<std::optional<std::string>()> source) {
        struct State {
            std::function<std::optional<std::string>()> fn;
            std::string line;
            std::shared_ptr<std::exception_ptr> pending;
        };
        auto *state = new State{std::move(source), {}, pending_};
        check([&](sense_error **e) {
            return sense_runtime_set_input(
                get(),
                [](void *ud, sense_str *line) -> bool {
                    auto *s = static_cast<State *>(ud);
                    try {
                        std::optional<std::string> got = s->fn();
                        if (!got) return false;
                        s->line = std::move(*got);
                        line->ptr = s->line.data();
                        line->len = s->line.size();
                        return true;
                    } catch (...) {
                        if (!*s->pending) *s->pending = std::current_exception();
                        return false;
                    }
                },
                state, [](void *ud) { delete static_cast<State *>(ud); }, e);
        });
    }

    /// Runs source text as a main program.
    void run(std::string_view name, std::string_view source) {
        exec([&](sense_error **e) {
            return sense_runtime_run_source(get(), name.data(), name.size(), source.data(),
                                            source.size(), e);
        });
    }
    /// Reads and runs a file.
    void run_file(std::string_view path) {
        exec([&](sense_error **e) { return sense_runtime_run_file(get(), path.data(), path.size(), e); });
    }

    /// Registers the network model providers (`inference("openai")`,
    /// `inference("anthropic")`) and `connect_mcp`, as the `sense` command
    /// has them (see sense_runtime_register_default_providers).
    void register_default_providers() {
        check([&](sense_error **e) { return sense_runtime_register_default_providers(get(), e); });
    }

    /// Registers a host function taking `arity` arguments (-1: any).
    void register_fn(std::string_view name, int arity, HostFn fn) {
        register_call(name, arity, [fn = std::move(fn)](const Call &c) { return fn(c.args()); });
    }
    /// Registers a host function that sees its Call (arguments, caller).
    void register_call(std::string_view name, int arity, CallFn fn) {
        auto *boxed = new CallFn(std::move(fn));
        check([&](sense_error **e) {
            return sense_runtime_register_fn(
                get(), name.data(), name.size(), arity, &Runtime::trampoline, boxed,
                [](void *ud) { delete static_cast<CallFn *>(ud); }, e);
        });
    }

    /// The value of a variable of the main program.
    Value global(std::string_view name) const {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_runtime_global(get(), name.data(), name.size(), &v, e); });
        return Value(v);
    }
    /// Binds a variable of the main program.
    void set_global(std::string_view name, const Value &value) {
        check([&](sense_error **e) {
            return sense_runtime_set_global(get(), name.data(), name.size(), value.get(), e);
        });
    }
    /// Calls the Sense function bound to `name` with `args`.
    Value call(std::string_view name, const std::vector<Value> &args = {}) {
        std::vector<const sense_value *> raw = raw_args(args);
        sense_value *out = nullptr;
        try {
            exec([&](sense_error **e) {
                return sense_runtime_call(get(), name.data(), name.size(), raw.data(), raw.size(),
                                          &out, e);
            });
        } catch (...) {
            sense_value_free(out);  // a result the output callback's exception preempted
            throw;
        }
        return Value(out);
    }

    /// Holds the current value of variable (or builtin) `name` — e.g. a
    /// function — whatever the program later binds to the name.
    Held hold_global(std::string_view name) {
        uint64_t id = 0;
        check([&](sense_error **e) {
            return sense_runtime_hold_global(get(), name.data(), name.size(), &id, e);
        });
        return Held(get(), id);
    }
    /// Holds a copy of `value` inside the runtime.
    Held hold_value(const Value &value) {
        const sense_value *raw = value.get();
        uint64_t id = 0;
        check([&](sense_error **e) { return sense_runtime_hold_value(get(), raw, &id, e); });
        return Held(get(), id);
    }
    /// A copy of a held value (a function comes out opaque).
    Value held_value(const Held &held) const {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_runtime_held_value(get(), held.id(), &v, e); });
        return Value(v);
    }
    /// Calls a held value (a function, a closure, a builtin) with `args`.
    Value call(const Held &fn, const std::vector<Value> &args = {}) {
        return call_held(fn, args, nullptr);
    }
    /// Calls a held value and holds its result: a function it returns can
    /// be called in turn.
    Held call_and_hold(const Held &fn, const std::vector<Value> &args = {}) {
        uint64_t id = 0;
        call_held(fn, args, &id);
        return Held(get(), id);
    }

    /// The names bound in the main program's scope (not the builtins),
    /// sorted.
    std::vector<std::string> global_names() const {
        sense_value *raw = nullptr;
        check([&](sense_error **e) { return sense_runtime_global_names(get(), &raw, e); });
        std::vector<std::string> names;
        for (const Value &v : Value(raw).as_list()) names.push_back(v.as_string());
        return names;
    }
    /// Every live agent, oldest first.
    std::vector<Agent> agents() const {
        sense_value *raw = nullptr;
        check([&](sense_error **e) { return sense_runtime_agents(get(), &raw, e); });
        std::vector<Agent> out;
        for (const Value &v : Value(raw).as_list()) out.push_back(v.as_agent());
        return out;
    }

    /// The agent bound to `name`.
    Agent agent(std::string_view name) const {
        Agent a{};
        check([&](sense_error **e) { return sense_agent_lookup(get(), name.data(), name.size(), &a, e); });
        return a;
    }
    /// The agent at `path` (array indexes) inside variable `name`.
    Agent agent_at(std::string_view name, const std::vector<size_t> &path) const {
        Agent a{};
        check([&](sense_error **e) {
            return sense_agent_lookup_path(get(), name.data(), name.size(), path.data(), path.size(), &a, e);
        });
        return a;
    }
    /// The agent at `path` inside member `name` of agent `a`.
    Agent agent_in_member(Agent a, std::string_view name, const std::vector<size_t> &path) {
        Agent out{};
        check([&](sense_error **e) {
            return sense_agent_member_agent(get(), a, name.data(), name.size(), path.data(),
                                            path.size(), &out, e);
        });
        return out;
    }
    sense_agent_status start(Agent a) { return drive(sense_agent_start, a); }
    sense_agent_status resume(Agent a, const Value &v = Value()) {
        return drive(sense_agent_resume, a, v.get());
    }
    /// Resumes with an Int passed directly: nothing to allocate or free
    /// (read the new pause value with `pause_reason_int`).
    sense_agent_status resume_int(Agent a, int64_t v) { return drive(sense_agent_resume_int, a, v); }
    /// Resumes with a String passed directly (the runtime copies it).
    sense_agent_status resume_string(Agent a, std::string_view v) {
        return drive(sense_agent_resume_string, a, v.data(), v.size());
    }
    /// Resumes with a Float passed directly.
    sense_agent_status resume_float(Agent a, double v) {
        return drive(sense_agent_resume_float, a, v);
    }
    /// Resumes with a Bool passed directly.
    sense_agent_status resume_bool(Agent a, bool v) { return drive(sense_agent_resume_bool, a, v); }
    void send(Agent a, const Value &message) {
        check([&](sense_error **e) { return sense_agent_send(get(), a, message.get(), e); });
    }
    sense_agent_status status(Agent a) const {
        return read<sense_agent_status>(sense_agent_get_status, a);
    }
    sense_pause_kind pause_kind(Agent a) const {
        return read<sense_pause_kind>(sense_agent_pause_kind, a);
    }
    Value pause_reason(Agent a) const {
        return Value(read<sense_value *>(sense_agent_pause_reason, a));
    }
    /// The pause reason if it is an Int (no copy); empty for other kinds.
    std::optional<int64_t> pause_reason_int(Agent a) const {
        return read_or<int64_t>(SENSE_STATUS_INVALID_ARGUMENT, sense_agent_pause_reason_int, a);
    }
    std::optional<double> pause_reason_float(Agent a) const {
        return read_or<double>(SENSE_STATUS_INVALID_ARGUMENT, sense_agent_pause_reason_float, a);
    }
    std::optional<bool> pause_reason_bool(Agent a) const {
        return read_or<bool>(SENSE_STATUS_INVALID_ARGUMENT, sense_agent_pause_reason_bool, a);
    }
    /// The pause reason if it is a String, as a view into the runtime
    /// (valid until the runtime next runs code); empty for other kinds.
    std::optional<std::string_view> pause_reason_string(Agent a) const {
        auto s =
            read_or<sense_str>(SENSE_STATUS_INVALID_ARGUMENT, sense_agent_pause_reason_string, a);
        if (!s) return std::nullopt;
        return view(*s);
    }
    /// `agent.name` as Sense reads it.
    Value member(Agent a, std::string_view name) const {
        sense_value *v = nullptr;
        check([&](sense_error **e) {
            return sense_agent_member(get(), a, name.data(), name.size(), &v, e);
        });
        return Value(v);
    }
    /// Keeps `a` alive while the returned hold exists.
    AgentHold hold(Agent a) { return AgentHold(get(), a); }
    /// A handle to ask `a` to pause from another thread.
    PauseHandle pause_handle(Agent a) const {
        sense_pause_handle *h = nullptr;
        check([&](sense_error **e) { return sense_pause_handle_new(get(), a, &h, e); });
        return PauseHandle(h);
    }

    /// The whole runtime as bytes.
    std::vector<uint8_t> snapshot() const {
        sense_bytes *raw = nullptr;
        check([&](sense_error **e) { return sense_runtime_snapshot(get(), &raw, e); });
        std::unique_ptr<sense_bytes, detail::BytesDeleter> owned(raw);
        const uint8_t *p = sense_bytes_data(raw);
        return std::vector<uint8_t>(p, p + sense_bytes_len(raw));
    }
    /// Restores a snapshot into this new runtime (register its host
    /// functions and output first).
    void restore(const std::vector<uint8_t> &bytes) {
        check([&](sense_error **e) { return sense_runtime_restore(get(), bytes.data(), bytes.size(), e); });
    }
    void set_subject(Agent a) {
        check([&](sense_error **e) { return sense_runtime_set_subject(get(), &a, e); });
    }
    std::optional<Agent> subject() const {
        return read_or<Agent>(SENSE_STATUS_NOT_FOUND, sense_runtime_get_subject);
    }

private:
    /// Starts or resumes through `fn(runtime, args..., &status, error)`
    /// (which may run Sense code); the settled status.
    template <typename Fn, typename... Args>
    sense_agent_status drive(Fn fn, Args... args) {
        sense_agent_status s{};
        exec([&](sense_error **e) { return fn(get(), args..., &s, e); });
        return s;
    }
    /// What `fn(runtime, args..., &out, error)` stores; throws on failure.
    template <typename T, typename Fn, typename... Args>
    T read(Fn fn, Args... args) const {
        T out{};
        check([&](sense_error **e) { return fn(get(), args..., &out, e); });
        return out;
    }
    /// Like read(), but empty instead of throwing for `absent`.
    template <typename T, typename Fn, typename... Args>
    std::optional<T> read_or(sense_status absent, Fn fn, Args... args) const {
        T out{};
        if (!check_or(absent, [&](sense_error **e) { return fn(get(), args..., &out, e); }))
            return std::nullopt;
        return out;
    }

    Value call_held(const Held &fn, const std::vector<Value> &args, uint64_t *out_held) {
        std::vector<const sense_value *> raw = raw_args(args);
        sense_value *out = nullptr;
        try {
            exec([&](sense_error **e) {
                return sense_runtime_call_held(get(), fn.id(), raw.data(), raw.size(), &out,
                                               out_held, e);
            });
        } catch (...) {
            sense_value_free(out);
            if (out_held && *out_held) sense_runtime_release_held(get(), *out_held, nullptr);
            throw;
        }
        return Value(out);
    }

    /// The C pointers of `args` (borrowed from them), for a call.
    static std::vector<const sense_value *> raw_args(const std::vector<Value> &args) {
        std::vector<const sense_value *> raw;
        raw.reserve(args.size());
        for (const Value &a : args) raw.push_back(a.get());
        return raw;
    }

    /// Runs a C call that may run Sense code: an exception the output or
    /// input callback stored meanwhile is rethrown first, then a failure
    /// of the call itself.
    template <typename F>
    void exec(F &&call) {
        sense_error *raw = nullptr;
        sense_status st = call(&raw);
        std::unique_ptr<sense_error, detail::ErrorDeleter> owned(raw);
        if (pending_ && *pending_) std::rethrow_exception(std::exchange(*pending_, nullptr));
        if (st != SENSE_STATUS_OK) throw Error(st, raw);
    }

    // Exceptions must not cross into C: they become Sense errors.
    static void trampoline(void *ud, sense_call *call) {
        try {
            Reply r = (*static_cast<CallFn *>(ud))(Call(call));
            if (r.suspend)
                sense_call_suspend(call, r.value.get(), nullptr);
            else
                sense_call_return(call, r.value.get(), nullptr);
        } catch (const std::exception &ex) {
            std::string_view what = ex.what();
            sense_call_fail(call, what.data(), what.size(), nullptr);
        } catch (...) {
            static const char unknown[] = "host function threw a non-standard exception";
            sense_call_fail(call, unknown, sizeof unknown - 1, nullptr);
        }
    }

    /// An exception from the output or input callback, until rethrown.
    /// Shared with the callbacks' state, so it survives moves.
    std::shared_ptr<std::exception_ptr> pending_ = std::make_shared<std::exception_ptr>();
    std::unique_ptr<sense_runtime, detail::RuntimeDeleter> rt_;
};

}  // namespace sense

#endif  // SENSE_HPP
