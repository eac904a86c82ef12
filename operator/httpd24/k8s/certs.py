"""Webhook TLS material made with ``cryptography`` (kopf's own self-signed path needs oscrypto,
which fails with OpenSSL 3 here).

* :func:`make_ca` -> (cert PEM, key PEM) of a small CA;
* :func:`make_serving_cert` -> (cert PEM, key PEM) for the given SANs, signed by that CA;
* :func:`ensure` writes ``ca.crt``, ``tls.crt``, ``tls.key`` into a directory (atomically, so a
  server watching the files never reads half of one) unless valid ones covering the SANs are there;
* :func:`load` checks files someone else made (cert-manager, the Helm chart): the key matches the
  certificate, it is valid now, and says which SANs it covers.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


class CertError(Exception):
    pass


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def _san(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def make_ca(common_name: str = "httpd24 webhook CA", days: int = 3650) -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                key_encipherment=False, data_encipherment=False, key_agreement=False, encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def make_serving_cert(ca_cert_pem: bytes, ca_key_pem: bytes, sans: Iterable[str], days: int = 365) -> tuple[bytes, bytes]:
    sans = [s for s in sans if s]
    if not sans:
        raise CertError("a serving certificate needs at least one host name or IP address")
    ca_cert = x509.load_pem_x509_certificate(ca_cert_pem)
    ca_key = serialization.load_pem_private_key(ca_key_pem, None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, sans[0][:64])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName([_san(s) for s in sans]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()), critical=False  # type: ignore[arg-type]
        )
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


@dataclass(frozen=True)
class CertFiles:
    ca: Path
    cert: Path
    key: Path


@dataclass(frozen=True)
class CertInfo:
    sans: tuple[str, ...]
    not_after: datetime.datetime
    issuer: str


def _write(path: Path, data: bytes, mode: int = 0o644) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(cert: str | Path, key: str | Path) -> CertInfo:
    """Check a certificate/key pair; raises :class:`CertError` saying what is wrong."""
    try:
        certificate = x509.load_pem_x509_certificate(Path(cert).read_bytes())
    except (OSError, ValueError) as error:
        raise CertError(f"{cert}: not a readable PEM certificate: {error}") from None
    try:
        private = serialization.load_pem_private_key(Path(key).read_bytes(), None)
    except (OSError, ValueError, TypeError) as error:
        raise CertError(f"{key}: not a readable unencrypted PEM private key: {error}") from None
    public = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    if private.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo) != public:
        raise CertError(f"{key} does not belong to the certificate {cert}")
    now = _now()
    if certificate.not_valid_after_utc <= now or certificate.not_valid_before_utc > now:
        raise CertError(f"{cert} is not valid now (valid {certificate.not_valid_before_utc} to {certificate.not_valid_after_utc})")
    try:
        ext = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        sans = tuple([str(v) for v in ext.get_values_for_type(x509.DNSName)] + [str(v) for v in ext.get_values_for_type(x509.IPAddress)])
    except x509.ExtensionNotFound:
        sans = ()
    return CertInfo(sans, certificate.not_valid_after_utc, certificate.issuer.rfc4514_string())


def ensure(directory: str | Path, sans: Iterable[str], *, renew_days: int = 30) -> CertFiles:
    """``ca.crt``, ``tls.crt``, ``tls.key`` in ``directory``; (re)made when missing, expiring or not covering ``sans``.

    The CA is kept when it is still valid, so the ``caBundle`` already in a webhook configuration stays right.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    sans = list(dict.fromkeys(s for s in sans if s))
    files = CertFiles(directory / "ca.crt", directory / "tls.crt", directory / "tls.key")
    ca_key_path = directory / "ca.key"
    soon = _now() + datetime.timedelta(days=renew_days)
    ca_ok = files.ca.exists() and ca_key_path.exists()
    if ca_ok:
        try:
            ca_info = load(files.ca, ca_key_path)
            ca_ok = ca_info.not_after > soon
        except CertError:
            ca_ok = False
    if not ca_ok:
        ca_pem, ca_key_pem = make_ca()
        _write(ca_key_path, ca_key_pem, 0o600)
        _write(files.ca, ca_pem)
    if ca_ok and files.cert.exists() and files.key.exists():
        try:
            info = load(files.cert, files.key)
            if info.not_after > soon and set(sans) <= set(info.sans):
                return files
        except CertError:
            pass
    cert_pem, key_pem = make_serving_cert(files.ca.read_bytes(), ca_key_path.read_bytes(), sans)
    _write(files.key, key_pem, 0o600)
    _write(files.cert, cert_pem)
    return files
