//! Builds and runs the host programs under `tests/hosts/` against the
//! freshly built `libsense`: every C11 file in `c/` as its own program,
//! the C++17 programs in `cpp/`, a `-fsyntax-only` C++ pass over the
//! header, a double-include link check, dynamic and pkg-config links of the
//! README example, an install into a prefix, and `go vet` + `go test` for
//! the Go package in `bindings/go`.
//!
//! - First `cargo build -p sense-ffi --lib` runs (same profile), because
//!   `cargo test` alone does not rebuild a crate's staticlib for its own
//!   integration tests (`SENSE_NO_BUILD=1` skips this). `libsense.a` /
//!   `libsense.so` are then looked up next to this test binary
//!   (`target/<profile>/deps`) and in `target/<profile>`; the newest wins.
//! - `SENSE_VALGRIND=1` runs the C and C++ programs under
//!   `valgrind --leak-check=full --error-exitcode=1`.
//! - `SENSE_SANITIZE=address` (AddressSanitizer with LeakSanitizer) or
//!   `SENSE_SANITIZE=undefined` (UndefinedBehaviorSanitizer, no recovery)
//!   compiles every C and C++ program with `clang`/`clang++` and
//!   `-fsanitize=...` `-fno-omit-frame-pointer -g` (into
//!   `target/<profile>/sense-hosts/<sanitizer>/`), links the uninstrumented
//!   `libsense.a`, runs it with `ASAN_OPTIONS`/`UBSAN_OPTIONS` set so that a
//!   report aborts it, and also fails a run whose stderr holds a sanitizer
//!   report. `sanitize/self_check` proves a planted bug
//!   (`tests/hosts/sanitize/`) is caught. The Go test is reported ignored.
//! - A missing toolchain — `cc`, `c++`, `go`, `pkg-config`, (with
//!   `SENSE_VALGRIND=1`) `valgrind`, (with `SENSE_SANITIZE`) `clang` or its
//!   sanitizer runtimes — skips the test that needs it: it prints ONE line
//!   to stderr, `SKIPPED: <what> — install <Debian package> (…) (<test>)`,
//!   and passes. With `SENSE_TEST_ALL=1` (as `.ci/run` sets) it fails
//!   instead, naming the package.
//! - `install/prefix` runs `scripts/install.sh` into a scratch prefix and
//!   builds the README example against the installed header, library and
//!   `sense.pc`; `c/pkg_config` uses the build tree's
//!   `target/<profile>/pkgconfig/sense.pc`.
//!
//! Run one: `cargo test -p sense-ffi --test hosts -- c/approval`.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::SystemTime;

const C_FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
const CXX_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
const SYS_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];

/// A sanitizer build of the C and C++ hosts (`SENSE_SANITIZE`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sanitizer {
    /// AddressSanitizer, with LeakSanitizer.
    Address,
    /// UndefinedBehaviorSanitizer; the first report ends the program.
    Undefined,
}

impl Sanitizer {
    /// `SENSE_SANITIZE`: unset or empty, `address` or `undefined`.
    fn from_env() -> Result<Option<Sanitizer>, String> {
        match std::env::var("SENSE_SANITIZE") {
            Err(_) => Ok(None),
            Ok(v) if v.is_empty() => Ok(None),
            Ok(v) if v == "address" => Ok(Some(Sanitizer::Address)),
            Ok(v) if v == "undefined" => Ok(Some(Sanitizer::Undefined)),
            Ok(v) => Err(format!(
                "SENSE_SANITIZE={v:?}: expected `address` or `undefined`"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Sanitizer::Address => "address",
            Sanitizer::Undefined => "undefined",
        }
    }

    /// Compile and link flags (clang's driver links its runtime).
    fn flags(self) -> &'static [&'static str] {
        match self {
            Sanitizer::Address => &["-fsanitize=address", "-fno-omit-frame-pointer", "-g"],
            Sanitizer::Undefined => &[
                "-fsanitize=undefined",
                "-fno-sanitize-recover=all",
                "-fno-omit-frame-pointer",
                "-g",
            ],
        }
    }

    /// The runtime options variable and its value. A report aborts the
    /// program. `fast_unwind_on_malloc=0` gives full allocation stacks
    /// through libsense, which is built without frame pointers.
    fn options(self) -> (&'static str, &'static str) {
        match self {
            Sanitizer::Address => (
                "ASAN_OPTIONS",
                "detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:\
                 detect_stack_use_after_return=1:strict_string_checks=1",
            ),
            Sanitizer::Undefined => ("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"),
        }
    }
}

/// The sanitizer selected by `SENSE_SANITIZE` (`main` has validated it).
fn sanitizer() -> Option<Sanitizer> {
    Sanitizer::from_env().ok().flatten()
}

/// The C compiler and the Debian package that provides it.
fn c_compiler() -> (&'static str, &'static str) {
    match sanitizer() {
        Some(_) => ("clang", "clang"),
        None => ("cc", "gcc"),
    }
}

/// The C++ compiler and the Debian package that provides it.
fn cxx_compiler() -> (&'static str, &'static str) {
    match sanitizer() {
        Some(_) => ("clang++", "clang"),
        None => ("c++", "g++"),
    }
}

/// `base` plus the sanitizer's flags, if one is selected.
fn with_sanitizer_flags<'a>(base: &[&'a str]) -> Vec<&'a str> {
    let mut flags = base.to_vec();
    if let Some(s) = sanitizer() {
        flags.extend_from_slice(s.flags());
    }
    flags
}

/// Checks the compiler is there and, under a sanitizer, that clang can
/// link a sanitized program (its runtimes are a separate Debian package,
/// only recommended by `clang`). The probe runs once per test binary.
fn require_compiler((tool, package): (&str, &str)) -> Result<(), Failed> {
    require(tool, package)?;
    let Some(san) = sanitizer() else {
        return Ok(());
    };
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| probe_sanitizer_runtime(san))
        .clone()
        .map_err(Failed::from)
}

fn probe_sanitizer_runtime(san: Sanitizer) -> Result<(), String> {
    let dir = out_dir();
    let src = dir.join("probe.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").map_err(|e| e.to_string())?;
    let mut cmd = Command::new("clang");
    cmd.args(san.flags())
        .arg(&src)
        .arg("-o")
        .arg(dir.join("probe"));
    match run(&mut cmd) {
        Ok(_) => Ok(()),
        Err(e) => {
            let major = Command::new("clang")
                .arg("-dumpversion")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .and_then(|v| v.split('.').next().map(str::to_string))
                .unwrap_or_else(|| "<version>".to_string());
            let what = format!(
                "clang cannot link a -fsanitize={} program ({})",
                san.name(),
                e.message()
                    .unwrap_or_default()
                    .lines()
                    .last()
                    .unwrap_or_default()
            );
            let package = format!("libclang-rt-{major}-dev (or libclang-rt-dev)");
            match missing(&what, &package) {
                Err(e) => Err(e.message().unwrap_or_default().to_string()),
                Ok(()) => Ok(()),
            }
        }
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn hosts_dir() -> PathBuf {
    repo().join("tests/hosts")
}

fn include_dir() -> PathBuf {
    repo().join("include")
}

/// `target/<profile>/deps`, where this test binary lives.
fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent().expect("deps dir").to_path_buf()
}

/// Where compiled host programs go: `target/<profile>/sense-hosts`, or its
/// subdirectory named after the sanitizer, so the builds never mix.
fn out_dir() -> PathBuf {
    let mut dir = deps_dir()
        .parent()
        .expect("profile dir")
        .join("sense-hosts");
    if let Some(s) = sanitizer() {
        dir.push(s.name());
    }
    std::fs::create_dir_all(&dir).expect("create target/<profile>/sense-hosts");
    dir
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The newest `libsense.<ext>` (also `libsense-<hash>.<ext>` in deps).
fn find_lib(ext: &str) -> Result<PathBuf, Failed> {
    let deps = deps_dir();
    let profile = deps.parent().expect("profile dir").to_path_buf();
    let mut found = Vec::new();
    for dir in [&deps, &profile] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == format!("libsense.{ext}")
                || (name.starts_with("libsense-") && name.ends_with(&format!(".{ext}")))
            {
                found.push(e.path());
            }
        }
    }
    found.into_iter().max_by_key(|p| mtime(p)).ok_or_else(|| {
        format!(
            "libsense.{ext} not found in {} or {}: run `cargo build -p sense-ffi` first",
            deps.display(),
            profile.display()
        )
        .into()
    })
}

fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == value)
}

fn have(tool: &str) -> bool {
    // `go` has no `--version`; everything else here does.
    let arg = if tool == "go" { "version" } else { "--version" };
    Command::new(tool)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Why a test did not run: a tool is missing and `SENSE_TEST_ALL` is not
/// set. Carried as a `Failed` whose message starts with [`SKIP_MARK`], so
/// `?` propagates it; [`skippable`] reports the test as ignored with that
/// reason on its line (never as passed).
const SKIP_MARK: &str = "SKIPPED: ";

/// Checks `tool` is on the machine. Missing: with `SENSE_TEST_ALL=1` the
/// test fails, naming the Debian package; otherwise it is skipped (see
/// [`skippable`]).
fn require(tool: &str, package: &str) -> Result<(), Failed> {
    if have(tool) {
        return Ok(());
    }
    missing(&format!("`{tool}` not found"), package)
}

/// A missing toolchain piece: a failure under `SENSE_TEST_ALL=1`, else a
/// skip.
fn missing(what: &str, package: &str) -> Result<(), Failed> {
    let install = format!("install {package} (`apt-get install -y {package}`)");
    if env_is("SENSE_TEST_ALL", "1") {
        Err(format!("{what}: {install}; SENSE_TEST_ALL=1 forbids skipping").into())
    } else {
        Err(format!("{SKIP_MARK}{what} — {install}").into())
    }
}

/// Runs a test body; a skip (see [`missing`]) reports the test ignored,
/// with what is missing as the reason the harness prints on its line.
fn skippable(
    body: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> impl FnOnce() -> Result<Completion, Failed> + Send + 'static {
    move || match body() {
        Err(e) if e.message().is_some_and(|m| m.starts_with(SKIP_MARK)) => {
            let reason = e.message().unwrap_or_default();
            let reason = reason.strip_prefix(SKIP_MARK).unwrap_or(reason).trim_end();
            Ok(Completion::ignored_with(reason.to_string()))
        }
        r => r.map(|()| Completion::Completed),
    }
}

/// Runs `cmd`, failing with its output when it does not succeed.
fn run(cmd: &mut Command) -> Result<String, Failed> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "{shown} failed ({})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            out.status
        )
        .into())
    }
}

/// Compiles `sources` into `exe` with `compiler` and `flags`, linking the
/// static library.
fn build(compiler: &str, flags: &[&str], sources: &[PathBuf], exe: &Path) -> Result<(), Failed> {
    let lib = find_lib("a")?;
    let mut cmd = Command::new(compiler);
    cmd.args(flags)
        .arg("-I")
        .arg(include_dir())
        .args(sources)
        .arg(&lib)
        .args(SYS_LIBS)
        .arg("-o")
        .arg(exe);
    run(&mut cmd).map(drop)
}

/// Runs a host program from `cwd` and returns its stdout: under valgrind
/// when `SENSE_VALGRIND=1`; with the sanitizer's options when
/// `SENSE_SANITIZE` is set, failing also on a report in its stderr.
fn run_host(exe: &Path, cwd: &Path) -> Result<String, Failed> {
    let mut cmd = if env_is("SENSE_VALGRIND", "1") {
        require("valgrind", "valgrind")?;
        let mut c = Command::new("valgrind");
        // Default leak kinds (definite and possible leaks are errors);
        // "still reachable" is not counted. One suppression (see the file)
        // for the standard library's current-thread handle. A child forked
        // to start an MCP server reports nothing: before its exec it is a
        // copy of this process, and after it, not the host under test.
        let supp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/hosts/valgrind.supp");
        c.args([
            "--quiet",
            "--leak-check=full",
            "--error-exitcode=1",
            "--child-silent-after-fork=yes",
        ])
        .arg(format!("--suppressions={}", supp.display()))
        .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.current_dir(cwd);
    // Hosts find libsense the way a user's program would: linked in, or
    // through the run path their link gave them. Cargo's own loader path
    // (target/<profile>/deps) must not stand in for that.
    cmd.env_remove("LD_LIBRARY_PATH");
    // Under valgrind or a sanitizer, long loops (tests/hosts/c/regressions.c
    // runs 100,000 programs) run shorter, and RSS is not compared: their
    // allocators keep freed memory on purpose.
    if env_is("SENSE_VALGRIND", "1") || sanitizer().is_some() {
        cmd.env("SENSE_HOST_QUICK", "1");
    }
    let Some(san) = sanitizer() else {
        return run(&mut cmd);
    };
    let (var, ours) = san.options();
    // Options already in the environment come last, so they can add to
    // (or override) ours.
    let options = match std::env::var(var) {
        Ok(extra) if !extra.is_empty() => format!("{ours}:{extra}"),
        _ => ours.to_string(),
    };
    cmd.env(var, &options);
    let shown = format!("{var}={options} {cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = sanitizer_report(&stderr);
    if out.status.success() && !report {
        return Ok(stdout);
    }
    let what = if report {
        "reported by the sanitizer"
    } else {
        "failed"
    };
    Err(format!(
        "{shown} {what} ({})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    )
    .into())
}

/// Whether a program's stderr holds an AddressSanitizer, LeakSanitizer or
/// UndefinedBehaviorSanitizer report (`ERROR: AddressSanitizer: ...`,
/// `SUMMARY: UndefinedBehaviorSanitizer: ...`, `x.c:1:2: runtime error: ...`).
fn sanitizer_report(stderr: &str) -> bool {
    stderr.contains("Sanitizer:") || stderr.contains(": runtime error: ")
}

fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

fn c_program(src: PathBuf) -> Result<(), Failed> {
    require_compiler(c_compiler())?;
    let exe = out_dir().join(format!("c_{}", stem(&src)));
    build(c_compiler().0, &with_sanitizer_flags(C_FLAGS), &[src], &exe)?;
    run_host(&exe, &hosts_dir().join("c")).map(drop)
}

fn cpp_program(src: PathBuf) -> Result<(), Failed> {
    require_compiler(cxx_compiler())?;
    let exe = out_dir().join(format!("cpp_{}", stem(&src)));
    // The shipped wrapper, include/sense.hpp, is found next to sense.h.
    let flags = with_sanitizer_flags(CXX_FLAGS);
    build(cxx_compiler().0, &flags, &[src], &exe)?;
    run_host(&exe, &hosts_dir().join("cpp")).map(drop)
}

/// `cpp_compat`: the header compiles as C++ (with clang++ under
/// `SENSE_SANITIZE`).
fn cpp_header_syntax() -> Result<(), Failed> {
    require(cxx_compiler().0, cxx_compiler().1)?;
    let mut cmd = Command::new(cxx_compiler().0);
    cmd.args(CXX_FLAGS)
        .arg("-fsyntax-only")
        .arg("-I")
        .arg(include_dir())
        .arg(hosts_dir().join("cpp/test_header_cxx.cc"));
    run(&mut cmd).map(drop)
}

/// Two translation units including the header link into one program (no
/// definitions in the header).
fn double_include() -> Result<(), Failed> {
    require_compiler(c_compiler())?;
    let dir = hosts_dir().join("c/double_include");
    let exe = out_dir().join("c_double_include");
    let sources = [dir.join("a.c"), dir.join("b.c")];
    build(
        c_compiler().0,
        &with_sanitizer_flags(C_FLAGS),
        &sources,
        &exe,
    )?;
    run_host(&exe, &dir).map(drop)
}

/// The README example linked against the shared library.
fn dynamic_link() -> Result<(), Failed> {
    require_compiler(c_compiler())?;
    let so = find_lib("so")?;
    // Copy it alone into a directory so `-lsense` cannot pick the `.a`,
    // under its soname (what the program asks the loader for) with the
    // development link beside it, as an install lays it out.
    let dir = out_dir().join("dynamic");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    std::fs::copy(&so, dir.join("libsense.so.0"))?;
    std::os::unix::fs::symlink("libsense.so.0", dir.join("libsense.so"))?;
    let exe = out_dir().join("c_example_readme_dynamic");
    let mut cmd = Command::new(c_compiler().0);
    cmd.args(with_sanitizer_flags(C_FLAGS))
        .arg("-I")
        .arg(include_dir())
        .arg(hosts_dir().join("c/example_readme.c"))
        .arg(format!("-L{}", dir.display()))
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-lsense")
        .arg("-o")
        .arg(&exe);
    run(&mut cmd)?;
    let out = run_host(&exe, &hosts_dir().join("c"))?;
    if !out.contains("1 passed, 0 failed") {
        return Err(format!("unexpected output:\n{out}").into());
    }
    Ok(())
}

/// Builds the README example with the flags `pkg-config [--static]
/// --cflags --libs sense` gives from `pc_dir`, runs it (with
/// `LD_LIBRARY_PATH` unset, see [`run_host`]) and checks how it was
/// linked: `--static` must leave no `NEEDED` entry for libsense, the
/// default must link the shared library by its soname.
fn pkg_config_example(pc_dir: &Path, static_link: bool, exe_name: &str) -> Result<(), Failed> {
    let mut args = vec!["--cflags", "--libs"];
    if static_link {
        args.insert(0, "--static");
    }
    let flags = run(Command::new("pkg-config")
        .env("PKG_CONFIG_PATH", pc_dir)
        .args(&args)
        .arg("sense"))?;
    let exe = out_dir().join(exe_name);
    let mut cmd = Command::new(c_compiler().0);
    cmd.args(with_sanitizer_flags(C_FLAGS))
        .arg(hosts_dir().join("c/example_readme.c"))
        .args(flags.split_whitespace())
        .arg("-o")
        .arg(&exe);
    run(&mut cmd)?;
    let out = run_host(&exe, &hosts_dir().join("c"))?;
    if !out.contains("1 passed, 0 failed") {
        return Err(format!("unexpected output:\n{out}").into());
    }
    require("readelf", "binutils")?;
    let dynamic = run(Command::new("readelf").arg("-d").arg(&exe))?;
    let needs_libsense = dynamic.contains("[libsense.so.0]");
    match (static_link, needs_libsense) {
        (true, true) => Err(format!(
            "`pkg-config --static` flags ({}) linked the shared library:\n{dynamic}",
            flags.trim()
        )
        .into()),
        (false, false) => Err(format!(
            "`pkg-config` flags ({}) did not link libsense.so.0:\n{dynamic}",
            flags.trim()
        )
        .into()),
        _ => Ok(()),
    }
}

/// The build tree's `target/<profile>/pkgconfig/sense.pc` (written by
/// `sense-ffi/build.rs`) gives working flags without installing: the
/// shared library through `target/<profile>/libsense.so.0` (the soname
/// link build.rs makes) and a run path, or with `--static` the archive.
fn pkg_config() -> Result<(), Failed> {
    require_compiler(c_compiler())?;
    require("pkg-config", "pkg-config")?;
    let profile_dir = deps_dir().parent().expect("profile dir").to_path_buf();
    if !profile_dir.join("libsense.so.0").exists() {
        return Err(format!(
            "{} has no libsense.so.0 (the soname of libsense.so)",
            profile_dir.display()
        )
        .into());
    }
    let pc_dir = profile_dir.join("pkgconfig");
    pkg_config_example(&pc_dir, false, "c_example_readme_pkg_config")?;
    pkg_config_example(&pc_dir, true, "c_example_readme_pkg_config_static")
}

/// `scripts/install.sh PREFIX` lays out the header, the C++ wrapper, the
/// libraries (soname link included) and `lib/pkgconfig/sense.pc`; the
/// README example builds against the install with the README's
/// `cc app.c $(pkg-config --cflags --libs sense)` and runs through the
/// installed soname with `LD_LIBRARY_PATH` unset; `--static` links the
/// archive.
fn install_prefix() -> Result<(), Failed> {
    require_compiler(c_compiler())?;
    require("pkg-config", "pkg-config")?;
    let prefix = out_dir().join("install-prefix");
    let _ = std::fs::remove_dir_all(&prefix);
    let profile_dir = deps_dir().parent().expect("profile dir").to_path_buf();
    run(Command::new("sh")
        .arg(repo().join("scripts/install.sh"))
        .arg(&prefix)
        .env("SENSE_LIB_DIR", &profile_dir)
        .env("SENSE_NO_BUILD", "1"))?;
    for f in [
        "include/sense.h",
        "include/sense.hpp",
        "lib/libsense.a",
        "lib/libsense.so",
        "lib/libsense.so.0",
        "lib/pkgconfig/sense.pc",
    ] {
        if !prefix.join(f).exists() {
            return Err(format!("install.sh did not install {f}").into());
        }
    }
    // The README's command verbatim: no -Wl,-rpath of our own, and the
    // program runs with LD_LIBRARY_PATH unset, through the soname the
    // install provides and the run path sense.pc gives.
    let pc_dir = prefix.join("lib/pkgconfig");
    pkg_config_example(&pc_dir, false, "c_example_readme_installed")?;
    pkg_config_example(&pc_dir, true, "c_example_readme_installed_static")
}

/// Every function the header declares is called from some C host test
/// (a `.c` host or the shared `harness.h`).
fn exports_covered() -> Result<(), Failed> {
    let header = std::fs::read_to_string(include_dir().join("sense.h"))?;
    let mut c_text = String::new();
    let c_dir = hosts_dir().join("c");
    for f in files_with_ext(&c_dir, "c")
        .into_iter()
        .chain(files_with_ext(&c_dir, "h"))
    {
        c_text.push_str(&std::fs::read_to_string(f)?);
    }
    let mut missing = Vec::new();
    for line in header.lines() {
        // Declarations look like `<type> sense_x_y(` at the start of a line.
        let Some(open) = line.find('(') else { continue };
        if line.starts_with(' ') || line.starts_with("typedef") || line.starts_with('#') {
            continue;
        }
        let Some(name) = line[..open].split_whitespace().last() else {
            continue;
        };
        let name = name.trim_start_matches('*');
        if name.starts_with("sense_") && !c_text.contains(&format!("{name}(")) {
            missing.push(name.to_string());
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("exported but never called from tests/hosts/c: {missing:?}").into())
    }
}

/// `sanitize/self_check`: a program with a planted bug from
/// `tests/hosts/sanitize/` (a leaked libsense value under `address`, a
/// signed overflow under `undefined`) must fail with the sanitizer's
/// report, so a build that silently lost its instrumentation (or runtime
/// options that stopped failing the run) cannot pass as clean.
fn sanitizer_self_check(san: Sanitizer) -> Result<(), Failed> {
    require_compiler(c_compiler())?;
    let (file, expected): (&str, &[&str]) = match san {
        // The allocation stack reaches into libsense's Rust code.
        Sanitizer::Address => (
            "leak.c",
            &[
                "ERROR: LeakSanitizer: detected memory leaks",
                "sense_value_new_string",
            ],
        ),
        Sanitizer::Undefined => ("overflow.c", &["runtime error: signed integer overflow"]),
    };
    let dir = hosts_dir().join("sanitize");
    let exe = out_dir().join(format!("self_check_{}", stem(Path::new(file))));
    build(
        c_compiler().0,
        &with_sanitizer_flags(C_FLAGS),
        &[dir.join(file)],
        &exe,
    )?;
    match run_host(&exe, &dir) {
        Ok(out) => Err(format!(
            "{file} ran clean under -fsanitize={}: the sanitizer is not working\n{out}",
            san.name()
        )
        .into()),
        Err(e) => {
            let msg = e.message().unwrap_or_default();
            match expected.iter().find(|want| !msg.contains(**want)) {
                None => Ok(()),
                Some(want) => Err(format!("{file} failed, but without {want:?}:\n{msg}").into()),
            }
        }
    }
}

fn go_test() -> Result<(), Failed> {
    let lib = find_lib("a")?;
    // A directory holding only the static library, so `-lsense` links it.
    let libdir = out_dir().join("go-lib");
    std::fs::create_dir_all(&libdir)?;
    std::fs::copy(&lib, libdir.join("libsense.a"))?;
    let work = out_dir().join("go");
    let go = |args: &[&str]| {
        let mut cmd = Command::new("go");
        cmd.args(args)
            .current_dir(repo().join("bindings/go"))
            .env("CGO_ENABLED", "1")
            .env("CGO_LDFLAGS", format!("-L{}", libdir.display()))
            .env("GOCACHE", work.join("cache"))
            .env("GOPATH", work.join("gopath"))
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local");
        cmd
    };
    run(&mut go(&["vet", "./..."]))?;
    run(Command::new("go")
        .args(["test", "-count=1", "./..."])
        .current_dir(repo().join("bindings/go"))
        .env("CGO_ENABLED", "1")
        .env("CGO_LDFLAGS", format!("-L{}", libdir.display()))
        .env("GOCACHE", work.join("cache"))
        .env("GOPATH", work.join("gopath"))
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local"))
    .map(drop)
}

/// Builds the C libraries of this crate (`cargo test` does not: a crate
/// without an rlib is no dependency of its own integration tests), so the
/// hosts never link a stale `libsense.a`. Cargo releases its build lock
/// before running tests, so the nested build does not wait on us; it finds
/// everything else already compiled. `SENSE_NO_BUILD=1` skips it.
fn build_libsense() -> Result<(), String> {
    if env_is("SENSE_NO_BUILD", "1") {
        return Ok(());
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let profile_dir = deps_dir().parent().expect("profile dir").to_path_buf();
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "-p", "sense-ffi", "--lib"]);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    // CARGO_TARGET_DIR, if set, is inherited, so this is our target dir.
    cmd.current_dir(repo());
    run(&mut cmd)
        .map(drop)
        .map_err(|e| e.message().unwrap_or("cargo build failed").to_string())
}

fn main() {
    let args = Arguments::from_args();
    let san = match Sanitizer::from_env() {
        Ok(san) => san,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    if san.is_some() && env_is("SENSE_VALGRIND", "1") {
        eprintln!("SENSE_SANITIZE and SENSE_VALGRIND=1 exclude each other: set one");
        std::process::exit(1);
    }
    if let Err(e) = build_libsense() {
        eprintln!("could not build libsense: {e}");
        std::process::exit(1);
    }
    let mut trials = Vec::new();

    for src in files_with_ext(&hosts_dir().join("c"), "c") {
        let name = format!("c/{}", stem(&src));
        trials.push(Trial::ignorable_test(
            name,
            skippable(move || c_program(src)),
        ));
    }
    trials.push(Trial::ignorable_test(
        "c/double_include",
        skippable(double_include),
    ));
    trials.push(Trial::ignorable_test(
        "c/dynamic_link",
        skippable(dynamic_link),
    ));
    trials.push(Trial::ignorable_test("c/pkg_config", skippable(pkg_config)));
    trials.push(Trial::test("c/exports_covered", exports_covered));
    trials.push(Trial::ignorable_test(
        "install/prefix",
        skippable(install_prefix),
    ));

    trials.push(Trial::ignorable_test(
        "cpp/header_syntax",
        skippable(cpp_header_syntax),
    ));
    for src in files_with_ext(&hosts_dir().join("cpp"), "cc") {
        if stem(&src) == "test_header_cxx" {
            continue;
        }
        let name = format!("cpp/{}", stem(&src));
        trials.push(Trial::ignorable_test(
            name,
            skippable(move || cpp_program(src)),
        ));
    }

    if let Some(san) = san {
        trials.push(Trial::ignorable_test(
            "sanitize/self_check",
            skippable(move || sanitizer_self_check(san)),
        ));
    }

    // cgo builds with gcc, not the sanitizer's clang: under SENSE_SANITIZE
    // the Go test (bindings/go) is reported as ignored; it runs in the
    // other passes.
    let instrumented = san.is_some();
    if instrumented {
        eprintln!("note: under SENSE_SANITIZE the Go test (bindings/go) is reported as ignored");
    }
    trials.push(
        Trial::ignorable_test(
            "go/test",
            skippable(|| {
                require("go", "golang-go")?;
                go_test()
            }),
        )
        .with_ignored_flag(instrumented),
    );

    libtest_mimic::run(&args, trials).exit();
}
