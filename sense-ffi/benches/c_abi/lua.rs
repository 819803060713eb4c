//! Lua 5.4's C API, for the Lua peer of the hand-off round trip: the
//! functions used, loaded at run time from the system's shared liblua5.4
//! (Debian: `liblua5.4-0`, installed with `lua5.4` by
//! `.ci/setup.d/40-lua.sh`), the same way this bench reaches libsense.
//! Loading at run time keeps Lua out of the build: `cargo test` and
//! `cargo bench --no-run` need no Lua headers or pkg-config entry, and
//! both peers are called through the same kind of function pointer.
//! `SENSE_LUA_LIB` names another library file.

use libloading::Library;
use std::ffi::c_int;
use std::mem::ManuallyDrop;
use std::ptr;
use std::sync::OnceLock;

/// `lua_State` (opaque).
#[repr(C)]
pub struct LuaState {
    _private: [u8; 0],
}

/// `lua_Integer` in Lua 5.4's default configuration.
pub type LuaInteger = i64;
/// `lua_KContext` (`intptr_t`).
type LuaKContext = isize;
/// `lua_CFunction`.
type LuaCFunction = unsafe extern "C" fn(*mut LuaState) -> c_int;
/// `lua_KFunction`: the continuation of a C function that yielded.
type LuaKFunction = unsafe extern "C" fn(*mut LuaState, c_int, LuaKContext) -> c_int;

/// `LUA_YIELD`: `lua_resume`'s status when the coroutine yielded.
pub const LUA_YIELD: c_int = 1;

/// The functions of Lua's C API the bench calls (each a plain function of
/// liblua; the macros `lua_pushinteger`/`lua_tointeger`/`lua_pop` of
/// lua.h expand to these).
pub struct Lua {
    new_state: unsafe extern "C" fn() -> *mut LuaState,
    close: unsafe extern "C" fn(*mut LuaState),
    new_thread: unsafe extern "C" fn(*mut LuaState) -> *mut LuaState,
    push_cclosure: unsafe extern "C" fn(*mut LuaState, LuaCFunction, c_int),
    /// `lua_pushinteger`.
    pub push_integer: unsafe extern "C" fn(*mut LuaState, LuaInteger),
    /// `lua_tointegerx`.
    pub to_integerx: unsafe extern "C" fn(*mut LuaState, c_int, *mut c_int) -> LuaInteger,
    get_top: unsafe extern "C" fn(*mut LuaState) -> c_int,
    /// `lua_settop`.
    pub set_top: unsafe extern "C" fn(*mut LuaState, c_int),
    /// `lua_resume`.
    pub resume: unsafe extern "C" fn(*mut LuaState, *mut LuaState, c_int, *mut c_int) -> c_int,
    yieldk: unsafe extern "C" fn(*mut LuaState, c_int, LuaKContext, Option<LuaKFunction>) -> c_int,
    /// Never unloaded, like libsense in the bench.
    _lib: ManuallyDrop<Library>,
}

/// The library, loaded once; `Err` says why it could not be.
static LUA: OnceLock<Result<Lua, String>> = OnceLock::new();

/// File names tried in order (after `SENSE_LUA_LIB`).
const CANDIDATES: &[&str] = &[
    "liblua5.4.so.0",
    "liblua5.4.so",
    "liblua.so.5.4",
    "liblua5.4.dylib",
    "liblua.5.4.dylib",
];

/// Resolves `name` to a function pointer of the field's type.
macro_rules! sym {
    ($lib:expr, $name:literal) => {{
        // SAFETY: the symbol is the Lua 5.4 API function of that name,
        // whose C signature the field's type mirrors (lua.h / lauxlib.h);
        // the pointer is used only while `Lua::_lib` keeps it loaded.
        let f = unsafe { $lib.get(concat!($name, "\0").as_bytes()) }
            .map_err(|e| format!("liblua does not export {}: {e}", $name))?;
        *f
    }};
}

/// Lua's C API, or why it is not available on this machine.
pub fn load() -> Result<&'static Lua, &'static str> {
    LUA.get_or_init(|| {
        let names: Vec<String> = std::env::var("SENSE_LUA_LIB")
            .map(|v| vec![v])
            .unwrap_or_else(|_| CANDIDATES.iter().map(|s| s.to_string()).collect());
        let mut last = String::new();
        for name in &names {
            // SAFETY: liblua's initialisers are the C runtime's only; it
            // is never unloaded (see `_lib`).
            match unsafe { Library::new(name) } {
                Ok(lib) => return resolve(lib),
                Err(e) => last = e.to_string(),
            }
        }
        Err(format!("no Lua 5.4 library ({}): {last}", names.join(", ")))
    })
    .as_ref()
    .map_err(String::as_str)
}

fn resolve(lib: Library) -> Result<Lua, String> {
    Ok(Lua {
        new_state: sym!(lib, "luaL_newstate"),
        close: sym!(lib, "lua_close"),
        new_thread: sym!(lib, "lua_newthread"),
        push_cclosure: sym!(lib, "lua_pushcclosure"),
        push_integer: sym!(lib, "lua_pushinteger"),
        to_integerx: sym!(lib, "lua_tointegerx"),
        get_top: sym!(lib, "lua_gettop"),
        set_top: sym!(lib, "lua_settop"),
        resume: sym!(lib, "lua_resume"),
        yieldk: sym!(lib, "lua_yieldk"),
        _lib: ManuallyDrop::new(lib),
    })
}

/// The coroutine's body, a C function, and its own continuation: takes
/// the integer it was resumed with (0 on the first call, which has no
/// arguments) and yields that integer + 1 — the Lua twin of the Sense
/// agent `x = 0; while true: x = pause(x + 1)`.
///
/// # Safety
/// Called by Lua only, on the coroutine's thread, after [`load`] succeeded.
unsafe extern "C" fn step(l: *mut LuaState, _status: c_int, _ctx: LuaKContext) -> c_int {
    let Some(Ok(lua)) = LUA.get() else {
        unreachable!("the coroutine runs only after load() succeeded")
    };
    // SAFETY: `l` is the running coroutine; index -1 (read only when the
    // stack is not empty) is the resume argument. `lua_yieldk` does not
    // return here: it unwinds to `lua_resume` with a longjmp, past this
    // frame, which holds nothing that needs dropping; Lua calls `step`
    // again on the next resume (the continuation).
    unsafe {
        let x = if (lua.get_top)(l) > 0 {
            (lua.to_integerx)(l, -1, ptr::null_mut())
        } else {
            0
        };
        (lua.set_top)(l, 0);
        (lua.push_integer)(l, x + 1);
        (lua.yieldk)(l, 1, 0, Some(step))
    }
}

/// `lua_CFunction` entry of the coroutine: the first call of [`step`].
///
/// # Safety
/// As [`step`].
unsafe extern "C" fn body(l: *mut LuaState) -> c_int {
    // SAFETY: as for `step`, which this forwards to.
    unsafe { step(l, 0, 0) }
}

/// A Lua state with one coroutine whose body is the C function [`body`],
/// started up to its first yield (of 1). Closed when dropped.
pub struct Coroutine {
    lua: &'static Lua,
    main: *mut LuaState,
    /// The coroutine (anchored on `main`'s stack, so never collected).
    pub co: *mut LuaState,
}

impl Coroutine {
    /// A fresh state and coroutine, paused at its first yield.
    pub fn new(lua: &'static Lua) -> Coroutine {
        // SAFETY: plain Lua API calls on a state this function creates;
        // the new thread stays on `main`'s stack (anchored) until close.
        unsafe {
            let main = (lua.new_state)();
            assert!(!main.is_null(), "luaL_newstate failed (out of memory)");
            let co = (lua.new_thread)(main);
            (lua.push_cclosure)(co, body, 0);
            let mut nres: c_int = 0;
            let st = (lua.resume)(co, ptr::null_mut(), 0, &mut nres);
            assert_eq!(st, LUA_YIELD, "the coroutine did not yield");
            assert_eq!((lua.to_integerx)(co, -1, ptr::null_mut()), 1);
            (lua.set_top)(co, -nres - 1);
            Coroutine { lua, main, co }
        }
    }

    /// One round trip: resume with `x`, read the integer yielded back.
    #[inline]
    pub fn round_trip(&mut self, x: LuaInteger) -> LuaInteger {
        let lua = self.lua;
        let mut nres: c_int = 0;
        // SAFETY: `co` is a live coroutine of `main`, suspended in a yield
        // with its yielded values already popped; it yields one integer.
        unsafe {
            (lua.push_integer)(self.co, x);
            let st = (lua.resume)(self.co, ptr::null_mut(), 1, &mut nres);
            debug_assert_eq!(st, LUA_YIELD);
            let got = (lua.to_integerx)(self.co, -1, ptr::null_mut());
            (lua.set_top)(self.co, -nres - 1);
            got
        }
    }
}

impl Drop for Coroutine {
    fn drop(&mut self) {
        // SAFETY: `main` came from luaL_newstate and is closed once, here
        // (which frees the coroutine too).
        unsafe { (self.lua.close)(self.main) }
    }
}
