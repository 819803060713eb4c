//! The test lists of `harness = false` suites (libtest-mimic) whose tests
//! run once per store: each such test is two trials, `NAME::sqlite`
//! (always run) and `NAME::postgres`, which follows the skip rule of
//! [`crate::toolchain`] with PostgreSQL as the tool it needs. Without a
//! server the PostgreSQL half is reported as *ignored*, with the reason
//! on its line; under `SENSE_TEST_ALL=1` it fails. Plain tests of the
//! same suite are listed beside them with [`trials!`](crate::trials!).
//!
//! ```no_run
//! use sense_testkit::trials::StoreKind;
//!
//! fn bad_urls_are_refused() {}
//! fn commit_checks_the_version(kind: StoreKind) {
//!     assert!(["sqlite", "postgres"].contains(&kind.name()));
//! }
//!
//! fn main() {
//!     sense_testkit::trials::run(sense_testkit::trials! {
//!         plain: bad_urls_are_refused;
//!         per_store: commit_checks_the_version;
//!     });
//! }
//! ```

use crate::toolchain::{self, Tool};
use libtest_mimic::Arguments;
/// A named test of a libtest-mimic harness (re-exported for
/// [`trials!`](crate::trials!)).
pub use libtest_mimic::Trial;

/// The variable naming a PostgreSQL server the tests may use (any
/// database on it: each test creates and drops its own).
pub const POSTGRES_URL_VAR: &str = "SENSE_TEST_POSTGRES_URL";

/// How to get a server: the script starts a throw-away cluster and
/// exports the variable, so it must be *sourced*, not run.
pub const POSTGRES_HINT: &str =
    "source .ci/setup.d/10-postgres.sh to start one and set SENSE_TEST_POSTGRES_URL";

/// Which store one trial of a per-store test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// A SQLite file in a temporary directory.
    Sqlite,
    /// A database created for the test on the server in
    /// [`POSTGRES_URL_VAR`].
    Postgres,
}

impl StoreKind {
    /// `sqlite` or `postgres`: the suffix of the trial's name.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Sqlite => "sqlite",
            StoreKind::Postgres => "postgres",
        }
    }
}

/// The server URL in [`POSTGRES_URL_VAR`], if set and not empty.
pub fn postgres_url() -> Option<String> {
    std::env::var(POSTGRES_URL_VAR)
        .ok()
        .filter(|url| !url.is_empty())
}

/// The server URL, for a test the gate let through; a clear failure when
/// it is missing (a test binary run by hand with `--include-ignored`).
pub fn require_postgres_url() -> String {
    postgres_url().unwrap_or_else(|| panic!("needs PostgreSQL: {POSTGRES_HINT}"))
}

/// PostgreSQL as a tool a test needs.
pub fn postgres() -> Tool {
    Tool::other("PostgreSQL", POSTGRES_HINT, postgres_url().is_some())
}

/// A trial that runs `test`; a panic fails it.
pub fn plain(name: &str, test: fn()) -> Trial {
    Trial::test(name, move || {
        test();
        Ok(())
    })
}

/// A trial that runs `test` only when PostgreSQL is configured (else
/// ignored, or failed under `SENSE_TEST_ALL=1`).
pub fn postgres_only(name: &str, test: fn()) -> Trial {
    toolchain::gated_trial(
        name,
        || vec![postgres()],
        move || {
            test();
            Ok(())
        },
    )
}

/// The two trials of a test that runs once per store: `NAME::sqlite` and
/// `NAME::postgres` (gated as [`postgres_only`]).
pub fn per_store(name: &str, test: fn(StoreKind)) -> [Trial; 2] {
    [
        Trial::test(format!("{name}::sqlite"), move || {
            test(StoreKind::Sqlite);
            Ok(())
        }),
        toolchain::gated_trial(
            format!("{name}::postgres"),
            || vec![postgres()],
            move || {
                test(StoreKind::Postgres);
                Ok(())
            },
        ),
    ]
}

/// Runs `trials` as the command line asks (filters, `--ignored`, …) and
/// exits with the harness's status.
pub fn run(trials: Vec<Trial>) -> ! {
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}

/// The trials of a suite from the names of its test functions: `plain:`
/// functions taking nothing, then `per_store:` functions taking a
/// [`StoreKind`](crate::trials::StoreKind) (two trials each). Either list
/// may be empty; a function may carry `#[cfg(…)]`. A test function left
/// out of the list is never called, which the compiler reports as dead
/// code.
#[macro_export]
macro_rules! trials {
    (
        plain: $($(#[$pm:meta])* $plain:ident),* ;
        per_store: $($(#[$sm:meta])* $store:ident),* $(;)?
    ) => {{
        let mut trials: ::std::vec::Vec<$crate::trials::Trial> = ::std::vec::Vec::new();
        $( $(#[$pm])* trials.push($crate::trials::plain(stringify!($plain), $plain)); )*
        $( $(#[$sm])* trials.extend($crate::trials::per_store(stringify!($store), $store)); )*
        trials
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::Gate;

    fn once_per_store(kind: StoreKind) {
        assert!(!kind.name().is_empty());
    }

    fn plain_test() {}

    #[test]
    fn a_per_store_test_is_two_trials_named_by_store() {
        let [sqlite, postgres] = per_store("commit", once_per_store);
        assert_eq!(sqlite.name(), "commit::sqlite");
        assert_eq!(postgres.name(), "commit::postgres");
    }

    #[test]
    fn the_macro_lists_plain_tests_then_two_trials_per_store_test() {
        let trials = crate::trials! {
            plain: plain_test;
            per_store: once_per_store;
        };
        let names: Vec<&str> = trials.iter().map(Trial::name).collect();
        assert_eq!(
            names,
            [
                "plain_test",
                "once_per_store::sqlite",
                "once_per_store::postgres"
            ]
        );
    }

    /// What a reader sees on the ignored (or, under `SENSE_TEST_ALL=1`,
    /// failed) line when no server is set: a command that works as written.
    #[test]
    fn a_missing_server_is_reported_with_the_command_to_source() {
        let missing = Tool::other("PostgreSQL", POSTGRES_HINT, false);
        let line = match toolchain::gate(&[missing]) {
            Gate::Skip(line) | Gate::Fail(line) => line,
            Gate::Run => panic!("a missing server must not run"),
        };
        assert!(
            line.starts_with("needs PostgreSQL: source .ci/setup.d/10-postgres.sh"),
            "{line}"
        );
        assert!(line.contains(POSTGRES_URL_VAR), "{line}");
    }
}
