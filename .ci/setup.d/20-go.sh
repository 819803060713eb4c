# Go toolchain for the Go bindings (bindings/go: `go vet` and `go test`,
# run by `cargo test -p sense-ffi --test hosts`, test go/test).
# Sourced by .ci/run; idempotent.
if command -v go >/dev/null 2>&1; then
  echo "go: $(go version)"
else
  echo "installing golang-go (Go bindings tests)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq golang-go
fi
