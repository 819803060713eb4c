//! How the PostgreSQL store connects: in the clear, or over TLS (rustls,
//! through `tokio-postgres-rustls`) as the URL's libpq-style parameters
//! say:
//!
//! | `sslmode=` | encrypted | server certificate checked |
//! |---|---|---|
//! | absent, `disable` | no | — |
//! | `prefer` | if the server offers TLS | no |
//! | `require` | yes | only against `sslrootcert`, when given (as libpq) |
//! | `verify-ca` | yes | chain to a trusted root |
//! | `verify-full` | yes | chain to a trusted root, and the host name |
//!
//! The trusted roots are the certificates of the PEM file
//! `sslrootcert=PATH`, or else the Mozilla set (`webpki-roots`; also
//! `sslrootcert=system`). The `postgres` client parses the rest of the
//! URL; it knows only `disable`/`prefer`/`require`, so both parameters
//! are taken out here first.

use crate::StoreError;
use postgres::config::SslMode;
use postgres::{Client, NoTls};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Opens one connection to the store's database.
pub(crate) type Connect = Arc<dyn Fn() -> Result<Client, postgres::Error> + Send + Sync>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// The connector for `url`; a bad URL, an unknown `sslmode` or an
/// unreadable `sslrootcert` is an error now, not at the first query.
pub(crate) fn connector(url: &str) -> Result<Connect, StoreError> {
    let (rest, mode, root_file) = take_tls_params(url)?;
    let mut config: postgres::Config = rest
        .parse()
        .map_err(|e: postgres::Error| StoreError::Url(format!("{}: {e}", shown(url))))?;
    if mode == Mode::Disable {
        config.ssl_mode(SslMode::Disable);
        return Ok(Arc::new(move || config.connect(NoTls)));
    }
    config.ssl_mode(if mode == Mode::Prefer {
        SslMode::Prefer
    } else {
        SslMode::Require
    });
    let tls = MakeRustlsConnect::new(client_config(mode, root_file.as_deref())?);
    Ok(Arc::new(move || config.connect(tls.clone())))
}

/// The URL for messages: without its password.
fn shown(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let userinfo = url.get(s + 3..at).unwrap_or("");
            match userinfo.split_once(':') {
                Some((user, _)) => format!(
                    "{}{user}:***{}",
                    url.get(..s + 3).unwrap_or(""),
                    url.get(at..).unwrap_or("")
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// Splits `sslmode` and `sslrootcert` off the URL's query string.
fn take_tls_params(url: &str) -> Result<(String, Mode, Option<String>), StoreError> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), Mode::Disable, None));
    };
    let mut mode = Mode::Disable;
    let mut root = None;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "sslmode" => {
                mode = match percent_decoded(v)?.as_str() {
                    "disable" => Mode::Disable,
                    "prefer" => Mode::Prefer,
                    "require" => Mode::Require,
                    "verify-ca" => Mode::VerifyCa,
                    "verify-full" => Mode::VerifyFull,
                    other => {
                        return Err(StoreError::Url(format!(
                            "sslmode={other}: expected disable, prefer, require, verify-ca or verify-full"
                        )));
                    }
                }
            }
            "sslrootcert" => root = Some(percent_decoded(v)?),
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((rest, mode, root.filter(|r| r != "system")))
}

fn percent_decoded(s: &str) -> Result<String, StoreError> {
    let bad = || StoreError::Url(format!("{s}: bad %-escape in a parameter"));
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hex = [bytes.next().ok_or_else(bad)?, bytes.next().ok_or_else(bad)?];
            let hex = std::str::from_utf8(&hex).map_err(|_| bad())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
        } else {
            out.push(b);
        }
    }
    String::from_utf8(out).map_err(|_| bad())
}

fn client_config(mode: Mode, root_file: Option<&str>) -> Result<ClientConfig, StoreError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls_err = |e: rustls::Error| StoreError::Url(format!("TLS: {e}"));
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(tls_err)?;
    let roots = match root_file {
        Some(path) => Some(roots_from(path)?),
        None if matches!(mode, Mode::VerifyCa | Mode::VerifyFull) => Some(
            RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        ),
        None => None,
    };
    let algorithms = provider.signature_verification_algorithms;
    let webpki = |roots: RootCertStore| {
        WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| StoreError::Url(format!("TLS: {e}")))
    };
    let verifier: Arc<dyn ServerCertVerifier> = match (mode, roots) {
        (Mode::VerifyFull, Some(roots)) => webpki(roots)?,
        (_, roots) => Arc::new(NoHostName {
            chain: roots.map(webpki).transpose()?,
            algorithms,
        }),
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth())
}

fn roots_from(path: &str) -> Result<RootCertStore, StoreError> {
    let bad = |e: &dyn std::fmt::Display| StoreError::Url(format!("sslrootcert={path}: {e}"));
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path).map_err(|e| bad(&e))? {
        roots.add(cert.map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
    }
    if roots.is_empty() {
        return Err(bad(&"no certificate in the file"));
    }
    Ok(roots)
}

/// A `ServerCertVerifier` method checking a handshake signature by the
/// `rustls::crypto` function of the same name, with `self.algorithms`.
macro_rules! signature_check {
    ($name:ident) => {
        fn $name(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::$name(message, cert, dss, &self.algorithms)
        }
    };
}

/// Every mode but `verify-full`: the host name is not checked — as libpq
/// does. With roots (`verify-ca`, or `require` with a root file) the chain
/// is checked; without (`prefer`, `require`), any server certificate is
/// taken. The handshake's signatures are always checked.
#[derive(Debug)]
struct NoHostName {
    chain: Option<Arc<WebPkiServerVerifier>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for NoHostName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    // The same checks `WebPkiServerVerifier` makes: its algorithms are the
    // provider's, as these are.
    signature_check!(verify_tls12_signature);
    signature_check!(verify_tls13_signature);

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_parameters_are_taken_out_of_the_url() {
        let (rest, mode, root) = take_tls_params(
            "postgres://u@localhost:5432/db?sslmode=verify-full&application_name=x&sslrootcert=%2Ftmp%2Fca.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u@localhost:5432/db?application_name=x");
        assert_eq!(mode, Mode::VerifyFull);
        assert_eq!(root.as_deref(), Some("/tmp/ca.pem"));
        let (rest, mode, root) = take_tls_params("postgres://u@h/db").unwrap();
        assert_eq!(
            (rest.as_str(), mode, root),
            ("postgres://u@h/db", Mode::Disable, None)
        );
        assert!(take_tls_params("postgres://u@h/db?sslmode=allow").is_err());
        assert!(take_tls_params("postgres://u@h/db?sslrootcert=%zz").is_err());
    }

    #[test]
    fn a_missing_root_file_is_refused_at_once() {
        assert!(
            connector("postgres://u@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
                .is_err()
        );
    }

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(shown("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(shown("postgres://u@h/db"), "postgres://u@h/db");
    }
}
