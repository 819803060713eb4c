//! Builds and runs the host programs under `tests/hosts/` against the
//! freshly built `libsense`: every C11 file in `c/` as its own program,
//! the C++17 programs in `cpp/`, a `-fsyntax-only` C++ pass over the
//! header, a double-include link check, dynamic and pkg-config links of the
//! README example, and `go test` for the Go package in `go/`.
//!
//! - First `cargo build -p sense-ffi --lib` runs (same profile), because
//!   `cargo test` alone does not rebuild a crate's staticlib for its own
//!   integration tests (`SENSE_NO_BUILD=1` skips this). `libsense.a` /
//!   `libsense.so` are then looked up next to this test binary
//!   (`target/<profile>/deps`) and in `target/<profile>`; the newest wins.
//! - `SENSE_VALGRIND=1` runs the C and C++ programs under
//!   `valgrind --leak-check=full --error-exitcode=1`.
//! - A missing `cc`, `c++`, `go` or (with `SENSE_VALGRIND=1`) `valgrind`
//!   fails the test that needs it, naming the Debian package to install.
//!   `SENSE_SKIP_GO=1` turns the Go test into a reported "ignored".
//!   `pkg-config` missing marks the pkg-config check ignored.
//!
//! Run one: `cargo test -p sense-ffi --test hosts -- c/approval`.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const C_FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
const CXX_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
const SYS_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];

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

/// Where compiled host programs go.
fn out_dir() -> PathBuf {
    let dir = deps_dir()
        .parent()
        .expect("profile dir")
        .join("sense-hosts");
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

fn require(tool: &str, package: &str) -> Result<(), Failed> {
    if have(tool) {
        Ok(())
    } else {
        Err(format!("`{tool}` not found: install it (`apt-get install -y {package}`)").into())
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

/// Runs a host program from `cwd`, under valgrind when `SENSE_VALGRIND=1`.
fn run_host(exe: &Path, cwd: &Path) -> Result<(), Failed> {
    let mut cmd = if env_is("SENSE_VALGRIND", "1") {
        require("valgrind", "valgrind")?;
        let mut c = Command::new("valgrind");
        // Default leak kinds (definite and possible leaks are errors); no
        // suppressions are needed: "still reachable" is not counted.
        c.args(["--quiet", "--leak-check=full", "--error-exitcode=1"])
            .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.current_dir(cwd);
    run(&mut cmd).map(drop)
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
    require("cc", "gcc")?;
    let exe = out_dir().join(format!("c_{}", stem(&src)));
    build("cc", C_FLAGS, &[src], &exe)?;
    run_host(&exe, &hosts_dir().join("c"))
}

fn cpp_program(src: PathBuf) -> Result<(), Failed> {
    require("c++", "g++")?;
    let exe = out_dir().join(format!("cpp_{}", stem(&src)));
    let mut flags = CXX_FLAGS.to_vec();
    let wrapper_dir = hosts_dir().join("cpp");
    let inc = format!("-I{}", wrapper_dir.display());
    flags.push(&inc);
    build("c++", &flags, &[src], &exe)?;
    run_host(&exe, &wrapper_dir)
}

/// `cpp_compat`: the header compiles as C++.
fn cpp_header_syntax() -> Result<(), Failed> {
    require("c++", "g++")?;
    let mut cmd = Command::new("c++");
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
    require("cc", "gcc")?;
    let dir = hosts_dir().join("c/double_include");
    let exe = out_dir().join("c_double_include");
    build("cc", C_FLAGS, &[dir.join("a.c"), dir.join("b.c")], &exe)?;
    run_host(&exe, &dir)
}

/// The README example linked against the shared library.
fn dynamic_link() -> Result<(), Failed> {
    require("cc", "gcc")?;
    let so = find_lib("so")?;
    // Copy it alone into a directory so `-lsense` cannot pick the `.a`.
    let dir = out_dir().join("dynamic");
    std::fs::create_dir_all(&dir)?;
    std::fs::copy(&so, dir.join("libsense.so"))?;
    let exe = out_dir().join("c_example_readme_dynamic");
    let mut cmd = Command::new("cc");
    cmd.args(C_FLAGS)
        .arg("-I")
        .arg(include_dir())
        .arg(hosts_dir().join("c/example_readme.c"))
        .arg(format!("-L{}", dir.display()))
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-lsense")
        .arg("-o")
        .arg(&exe);
    run(&mut cmd)?;
    let out = run(Command::new(&exe).current_dir(hosts_dir().join("c")))?;
    if !out.contains("1 passed, 0 failed") {
        return Err(format!("unexpected output:\n{out}").into());
    }
    Ok(())
}

/// `include/sense.pc` gives working flags for an installed layout.
fn pkg_config() -> Result<(), Failed> {
    require("cc", "gcc")?;
    let prefix = out_dir().join("prefix");
    std::fs::create_dir_all(prefix.join("include"))?;
    std::fs::create_dir_all(prefix.join("lib"))?;
    std::fs::copy(
        include_dir().join("sense.h"),
        prefix.join("include/sense.h"),
    )?;
    std::fs::copy(find_lib("a")?, prefix.join("lib/libsense.a"))?;
    let flags = run(Command::new("pkg-config")
        .env("PKG_CONFIG_PATH", include_dir())
        .arg(format!("--define-variable=prefix={}", prefix.display()))
        .args(["--static", "--cflags", "--libs", "sense"]))?;
    let exe = out_dir().join("c_example_readme_pkg_config");
    let mut cmd = Command::new("cc");
    cmd.args(C_FLAGS)
        .arg(hosts_dir().join("c/example_readme.c"))
        .args(flags.split_whitespace())
        .arg("-o")
        .arg(&exe);
    run(&mut cmd)?;
    run_host(&exe, &hosts_dir().join("c"))
}

/// Every function the header declares is called from some C host test.
fn exports_covered() -> Result<(), Failed> {
    let header = std::fs::read_to_string(include_dir().join("sense.h"))?;
    let mut c_text = String::new();
    for f in files_with_ext(&hosts_dir().join("c"), "c") {
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

fn go_test() -> Result<(), Failed> {
    let lib = find_lib("a")?;
    // A directory holding only the static library, so `-lsense` links it.
    let libdir = out_dir().join("go-lib");
    std::fs::create_dir_all(&libdir)?;
    std::fs::copy(&lib, libdir.join("libsense.a"))?;
    let work = out_dir().join("go");
    run(Command::new("go")
        .args(["test", "-count=1", "./..."])
        .current_dir(hosts_dir().join("go"))
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
    if let Err(e) = build_libsense() {
        eprintln!("could not build libsense: {e}");
        std::process::exit(1);
    }
    let mut trials = Vec::new();

    for src in files_with_ext(&hosts_dir().join("c"), "c") {
        let name = format!("c/{}", stem(&src));
        trials.push(Trial::test(name, move || c_program(src)));
    }
    trials.push(Trial::test("c/double_include", double_include));
    trials.push(Trial::test("c/dynamic_link", dynamic_link));
    trials.push(Trial::test("c/pkg_config", pkg_config).with_ignored_flag(!have("pkg-config")));
    trials.push(Trial::test("c/exports_covered", exports_covered));

    trials.push(Trial::test("cpp/header_syntax", cpp_header_syntax));
    for src in files_with_ext(&hosts_dir().join("cpp"), "cc") {
        if stem(&src) == "test_header_cxx" {
            continue;
        }
        let name = format!("cpp/{}", stem(&src));
        trials.push(Trial::test(name, move || cpp_program(src)));
    }

    let skip_go = env_is("SENSE_SKIP_GO", "1");
    if skip_go {
        eprintln!("SENSE_SKIP_GO=1: the Go host test is reported as ignored");
    }
    trials.push(
        Trial::test("go/test", || {
            require("go", "golang-go")?;
            go_test()
        })
        .with_ignored_flag(skip_go),
    );

    libtest_mimic::run(&args, trials).exit();
}
