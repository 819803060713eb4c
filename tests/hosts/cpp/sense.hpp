// A small RAII wrapper over libsense for C++17 hosts: owning handles with
// unique_ptr deleters, errors as exceptions, callbacks as std::function.
// It is test code for the C ABI, kept deliberately small; not a product.
#ifndef SENSE_HPP
#define SENSE_HPP

#include <sense.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sense {

struct ErrorDeleter {
    void operator()(sense_error *e) const noexcept { sense_error_free(e); }
};
struct ValueDeleter {
    void operator()(sense_value *v) const noexcept { sense_value_free(v); }
};
struct RuntimeDeleter {
    void operator()(sense_runtime *r) const noexcept { sense_runtime_free(r); }
};
struct BytesDeleter {
    void operator()(sense_bytes *b) const noexcept { sense_bytes_free(b); }
};

inline std::string_view view(sense_str s) { return {s.ptr ? s.ptr : "", s.len}; }

// A failed call: the status and the copied error details.
class Error : public std::runtime_error {
public:
    Error(sense_status status, sense_error *raw)
        : std::runtime_error(std::string(view(sense_error_rendered(raw)))),
          status_(status),
          class_(view(sense_error_class(raw))),
          message_(view(sense_error_message(raw))),
          line_(sense_error_line(raw)),
          column_(sense_error_column(raw)) {}
    sense_status status() const noexcept { return status_; }
    const std::string &class_name() const noexcept { return class_; }
    const std::string &message() const noexcept { return message_; }
    uint32_t line() const noexcept { return line_; }
    uint32_t column() const noexcept { return column_; }

private:
    sense_status status_;
    std::string class_, message_;
    uint32_t line_, column_;
};

// Runs a C call that takes a trailing `sense_error **`, throwing on failure.
template <typename F>
void check(F &&call) {
    sense_error *raw = nullptr;
    sense_status st = call(&raw);
    std::unique_ptr<sense_error, ErrorDeleter> owned(raw);
    if (st != SENSE_STATUS_OK) throw Error(st, raw);
}

// An owned value.
class Value {
public:
    Value() : v_(sense_value_new_nil()) {}
    explicit Value(sense_value *owned) : v_(owned) {}
    static Value of(int64_t i) { return Value(sense_value_new_int(i)); }
    static Value of(bool b) { return Value(sense_value_new_bool(b)); }
    static Value of(std::string_view s) {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_value_new_string(s.data(), s.size(), &v, e); });
        return Value(v);
    }
    const sense_value *get() const noexcept { return v_.get(); }
    sense_value_kind kind() const {
        sense_value_kind k{};
        check([&](sense_error **e) { return sense_value_get_kind(v_.get(), &k, e); });
        return k;
    }
    std::string as_string() const {
        sense_str s{};
        check([&](sense_error **e) { return sense_value_as_string(v_.get(), &s, e); });
        return std::string(view(s));
    }
    int64_t as_int() const {
        int64_t i = 0;
        check([&](sense_error **e) { return sense_value_as_int(v_.get(), &i, e); });
        return i;
    }

private:
    std::unique_ptr<sense_value, ValueDeleter> v_;
};

// A host function: gets the arguments, returns a value or suspends.
struct Reply {
    Value value;
    bool suspend = false;
};
using HostFn = std::function<Reply(const std::vector<const sense_value *> &)>;

// A runtime that owns its callbacks' state.
class Runtime {
public:
    Runtime() {
        sense_runtime *r = nullptr;
        check([&](sense_error **e) { return sense_runtime_new(&r, e); });
        rt_.reset(r);
    }

    // Captures output into a string instead of stdout.
    void capture_output(std::string *sink) {
        check([&](sense_error **e) {
            return sense_runtime_set_output(
                rt_.get(),
                [](void *ud, sense_str text) {
                    static_cast<std::string *>(ud)->append(text.ptr, text.len);
                },
                sink, nullptr, e);
        });
    }

    void run(std::string_view name, std::string_view source) {
        check([&](sense_error **e) {
            return sense_runtime_run_source(rt_.get(), name.data(), name.size(), source.data(),
                                            source.size(), e);
        });
    }

    // Registers `fn`; the runtime frees the std::function with itself.
    void register_fn(std::string_view name, int arity, HostFn fn) {
        auto *boxed = new HostFn(std::move(fn));
        check([&](sense_error **e) {
            return sense_runtime_register_fn(
                rt_.get(), name.data(), name.size(), arity, &Runtime::trampoline, boxed,
                [](void *ud) { delete static_cast<HostFn *>(ud); }, e);
        });
    }

    sense_agent agent(std::string_view name) const {
        sense_agent a{};
        check([&](sense_error **e) {
            return sense_agent_lookup(rt_.get(), name.data(), name.size(), &a, e);
        });
        return a;
    }
    sense_agent_status start(sense_agent a) {
        sense_agent_status s{};
        check([&](sense_error **e) { return sense_agent_start(rt_.get(), a, &s, e); });
        return s;
    }
    sense_agent_status resume(sense_agent a, const Value &v) {
        sense_agent_status s{};
        check([&](sense_error **e) { return sense_agent_resume(rt_.get(), a, v.get(), &s, e); });
        return s;
    }
    sense_pause_kind pause_kind(sense_agent a) const {
        sense_pause_kind k{};
        check([&](sense_error **e) { return sense_agent_pause_kind(rt_.get(), a, &k, e); });
        return k;
    }
    Value pause_reason(sense_agent a) const {
        sense_value *v = nullptr;
        check([&](sense_error **e) { return sense_agent_pause_reason(rt_.get(), a, &v, e); });
        return Value(v);
    }
    // The whole runtime as bytes (see sense_runtime_snapshot).
    std::vector<uint8_t> snapshot() const {
        sense_bytes *raw = nullptr;
        check([&](sense_error **e) { return sense_runtime_snapshot(rt_.get(), &raw, e); });
        std::unique_ptr<sense_bytes, BytesDeleter> owned(raw);
        const uint8_t *p = sense_bytes_data(raw);
        return std::vector<uint8_t>(p, p + sense_bytes_len(raw));
    }
    // Restores a snapshot into this new runtime; register its host
    // functions and output first.
    void restore(const std::vector<uint8_t> &bytes) {
        check([&](sense_error **e) {
            return sense_runtime_restore(rt_.get(), bytes.data(), bytes.size(), e);
        });
    }
    void set_subject(sense_agent a) {
        check([&](sense_error **e) { return sense_runtime_set_subject(rt_.get(), &a, e); });
    }
    // The subject agent, if any.
    std::optional<sense_agent> subject() const {
        sense_agent a{};
        sense_error *raw = nullptr;
        sense_status st = sense_runtime_get_subject(rt_.get(), &a, &raw);
        std::unique_ptr<sense_error, ErrorDeleter> owned(raw);
        if (st == SENSE_STATUS_NOT_FOUND) return std::nullopt;
        if (st != SENSE_STATUS_OK) throw Error(st, raw);
        return a;
    }
    Value global(std::string_view name) const {
        sense_value *v = nullptr;
        check([&](sense_error **e) {
            return sense_runtime_global(rt_.get(), name.data(), name.size(), &v, e);
        });
        return Value(v);
    }

private:
    // C callbacks must not let exceptions escape: they become Sense errors.
    static void trampoline(void *ud, sense_call *call) {
        try {
            size_t n = 0;
            sense_call_arg_count(call, &n, nullptr);
            std::vector<const sense_value *> args(n);
            for (size_t i = 0; i < n; i++) sense_call_arg(call, i, &args[i], nullptr);
            Reply r = (*static_cast<HostFn *>(ud))(args);
            if (r.suspend)
                sense_call_suspend(call, r.value.get(), nullptr);
            else
                sense_call_return(call, r.value.get(), nullptr);
        } catch (const std::exception &ex) {
            std::string_view what = ex.what();
            sense_call_fail(call, what.data(), what.size(), nullptr);
        }
    }

    std::unique_ptr<sense_runtime, RuntimeDeleter> rt_;
};

}  // namespace sense

#endif  // SENSE_HPP
