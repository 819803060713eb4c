//! TLS to PostgreSQL: a PostgreSQL server of the test's own, started with
//! a throw-away certificate authority (made with the `openssl` command)
//! and refusing unencrypted connections (`hostnossl … reject`), reached
//! with `sslmode=require`, `verify-ca` and `verify-full`. Wrong roots, a
//! wrong host name and a missing `sslmode` are refused. Gated like every
//! PostgreSQL test (`SENSE_TEST_POSTGRES_URL`: the server's programs are
//! installed); the server's programs are found as `.ci/setup.d` finds
//! them.
// Test code (a libtest-mimic harness): unwrapping and panicking fail the
// test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use sense_store::{Event, NewInstance, Record};
use sense_testkit::TempDir;
use sense_testkit::trials::postgres_only;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A PostgreSQL server in a temporary directory, stopped when dropped.
struct TlsServer {
    /// Removed (after the server stops) when dropped.
    dir: TempDir,
    bin: PathBuf,
    port: u16,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = as_postgres(&self.bin.join("pg_ctl"))
            .args(["-D", &self.dir.0.join("data").display().to_string()])
            .args(["-m", "immediate", "stop"])
            .output();
    }
}

/// The newest `/usr/lib/postgresql/*/bin`, else the one `initdb` on the
/// PATH is in.
fn server_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists())
        .collect();
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
    });
    if let Some(bin) = found.pop() {
        return bin;
    }
    let out = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
        .unwrap();
    let initdb = String::from_utf8(out.stdout).unwrap();
    Path::new(initdb.trim())
        .parent()
        .expect("PostgreSQL's initdb is not installed")
        .to_path_buf()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// The server refuses to run as root: as root, its programs run as the
/// `postgres` user.
fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(c: &mut Command) {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{c:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn openssl(dir: &Path, args: &[&str]) {
    run(Command::new("openssl").current_dir(dir).args(args));
}

/// A CA (`NAME.pem`, `NAME.key`) in `dir`.
fn make_ca(dir: &Path, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.pem"),
        ],
    );
}

fn start_server() -> TlsServer {
    let tmp = TempDir::new("pg-tls");
    let dir = tmp.0.clone();
    make_ca(&dir, "ca");
    make_ca(&dir, "other-ca");
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        &dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
    );
    openssl(
        &dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ],
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bin = server_bin();
    let server = TlsServer {
        dir: tmp,
        bin: bin.clone(),
        port,
    };
    if is_root() {
        run(Command::new("chown").args(["-R", "postgres"]).arg(&dir));
    }
    run(Command::new("chmod")
        .arg("0600")
        .arg(dir.join("server.key")));
    let data = dir.join("data");
    run(as_postgres(&bin.join("initdb"))
        .args(["-D", &data.display().to_string()])
        .args(["-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale"]));
    // Encrypted connections only.
    std::fs::write(
        data.join("pg_hba.conf"),
        "hostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n",
    )
    .unwrap();
    let options = format!(
        "-c listen_addresses=127.0.0.1 -p {port} -k {d} -c ssl=on \
         -c ssl_cert_file={d}/server.crt -c ssl_key_file={d}/server.key",
        d = dir.display()
    );
    run(as_postgres(&bin.join("pg_ctl"))
        .args(["-D", &data.display().to_string()])
        .args(["-l", &dir.join("server.log").display().to_string()])
        .args(["-w", "-o", &options, "start"]));
    server
}

fn url(s: &TlsServer, host: &str, params: &str) -> String {
    format!("postgres://postgres@{host}:{}/postgres{params}", s.port)
}

/// Asserts that `url` fails to connect, with an error that `expected`
/// accepts.
fn refused(url: &str, expected: impl Fn(&str) -> bool) {
    let err = round_trip(url).unwrap_err();
    assert!(expected(&err), "{url}: {err}");
}

fn round_trip(url: &str) -> Result<(), String> {
    let store = sense_store::open(url).map_err(|e| e.to_string())?;
    let id = format!("i{}", std::process::id());
    let record = Record::paused(b"snap".to_vec(), "\"q\"", "ask_human");
    store
        .create(
            &NewInstance::new(&id, "a", "p.sns", "h", record),
            &Event::new("created", "{}"),
        )
        .map_err(|e| e.to_string())?;
    let loaded = store.load(&id).map_err(|e| e.to_string())?.unwrap();
    assert_eq!(loaded.snapshot, b"snap");
    store
        .delete(&id, None, &Event::new("deleted", "{}"))
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn tls_modes_against_a_server_with_a_throwaway_ca() {
    let s = start_server();
    let ca = s.dir.0.join("ca.pem").display().to_string();
    let other = s.dir.0.join("other-ca.pem").display().to_string();
    // Verified: chain and host name.
    round_trip(&url(
        &s,
        "localhost",
        &format!("?sslmode=verify-full&sslrootcert={ca}"),
    ))
    .unwrap();
    // Encrypted without checking the certificate, as libpq's `require`;
    // `prefer` encrypts when the server offers it, and connects in the
    // clear to a server that does not (the plain test server).
    round_trip(&url(&s, "127.0.0.1", "?sslmode=require")).unwrap();
    round_trip(&url(&s, "127.0.0.1", "?sslmode=prefer")).unwrap();
    let plain_server =
        sense_store::testing::TempDatabase::create(&sense_testkit::trials::require_postgres_url())
            .unwrap();
    round_trip(&format!("{}?sslmode=prefer", plain_server.url())).unwrap();
    // The chain without the host name (the certificate names localhost).
    round_trip(&url(
        &s,
        "127.0.0.1",
        &format!("?sslmode=verify-ca&sslrootcert={ca}"),
    ))
    .unwrap();
    // Refused: not encrypted; the wrong host name; roots that did not
    // sign the server's certificate.
    refused(&url(&s, "127.0.0.1", ""), |e| {
        e.contains("no encryption") || e.contains("pg_hba")
    });
    let full = |host: &str, root: &str| {
        url(
            &s,
            host,
            &format!("?sslmode=verify-full&sslrootcert={root}"),
        )
    };
    refused(&full("127.0.0.1", &ca), |e| {
        e.contains("not valid for name") || e.contains("NotValidForName")
    });
    refused(&full("localhost", &other), |e| {
        e.to_lowercase().contains("unknownissuer") || e.contains("issuer")
    });
    let ca_only = round_trip(&url(
        &s,
        "localhost",
        &format!("?sslmode=verify-ca&sslrootcert={other}"),
    ));
    assert!(ca_only.is_err());
}

fn main() {
    sense_testkit::trials::run(vec![postgres_only(
        "tls_modes_against_a_server_with_a_throwaway_ca",
        tls_modes_against_a_server_with_a_throwaway_ca,
    )]);
}
