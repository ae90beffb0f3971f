#!/usr/bin/env bash
# Installs mcpconform for the action (action.yml), in two steps the action
# runs around its actions/cache step:
#
#   install.sh resolve   decides what to install from MCPCONFORM_VERSION and
#                        writes kind, version, os, arch, dir and cache-key
#   install.sh install   installs it into dir and writes path
#
# A release (a tag vX.Y.Z, or latest resolved to one) is downloaded, never
# built: the archive mcpconform_X.Y.Z_OS_ARCH.tar.gz and the checksums file
# mcpconform_X.Y.Z_checksums.txt from MCPCONFORM_BASE_URL/vX.Y.Z/ (GitHub's
# release layout, what .goreleaser.yaml publishes); the archive's SHA-256 must
# equal its line in the checksums file, or nothing is installed and the exit
# status is 2. latest is resolved by following the redirect of the page beside
# the base URL (BASE without its last /download, then /latest, as GitHub's
# releases/latest answers with releases/tag/vX.Y.Z); when that names no
# release, latest is built with go install …@latest, with a warning. Anything
# else is built from source with go install: a directory (a path starting with
# . or /) holding a checkout, or a commit or branch of the module.
#
# Environment: MCPCONFORM_VERSION, MCPCONFORM_BASE_URL (default the GitHub
# releases), RUNNER_TEMP (where dir is; default TMPDIR), GITHUB_OUTPUT (the
# step's outputs; also printed), MCPCONFORM_DOWNLOAD_TIMEOUT (seconds one
# download attempt may take, default 120) and MCPCONFORM_DOWNLOAD_RETRIES
# (default 3; only transient failures are retried). install reads the
# outputs of resolve back as MCPCONFORM_KIND, MCPCONFORM_VERSION,
# MCPCONFORM_OS, MCPCONFORM_ARCH and MCPCONFORM_DIR.
# Exit status: 0 installed (or resolved), 2 anything else, with the reason.
set -euo pipefail

module=github.com/mcpconform/mcpconform
default_base=https://github.com/mcpconform/mcpconform/releases/download
release_tag='^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'
timeout="${MCPCONFORM_DOWNLOAD_TIMEOUT:-120}"
retries="${MCPCONFORM_DOWNLOAD_RETRIES:-3}"

# fail prints the reason as a GitHub error annotation and exits 2.
fail() {
	echo "::error title=mcpconform install::$*"
	exit 2
}

# output writes one step output, and prints it.
output() {
	echo "$1=$2"
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		echo "$1=$2" >>"$GITHUB_OUTPUT"
	fi
}

# redact prints a URL without its credentials and its query, the places a
# token can hide: printed URLs never carry a secret.
redact() {
	printf '%s' "$1" | sed -E 's#^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@#\1***@#; s#[?].*#?...#'
}

# base_url sets base to MCPCONFORM_BASE_URL (or the default), checked.
base_url() {
	base="${MCPCONFORM_BASE_URL:-}"
	base="${base:-$default_base}"
	base="${base%/}"
	[[ "$base" =~ ^https?:// ]] || fail "base-url '$(redact "$base")' is not an http(s) URL; give the URL that release tags' directories are under (default $default_base)"
}

# curl_get runs curl with the download's limits: an error status fails, only
# transient failures are retried, every attempt has a deadline, and only
# http(s) is followed.
curl_get() {
	curl --fail --silent --show-error --location --proto '=http,https' --proto-redir '=http,https' \
		--connect-timeout 15 --max-time "$timeout" --retry "$retries" --retry-delay 1 \
		--retry-max-time "$((timeout * (retries + 1)))" "$@"
}

# download fetches URL into FILE, failing with WHAT it is, the URL
# (redacted), the HTTP status and what to do.
download() {
	local url=$1 file=$2 what=$3 code status=0
	code="$(curl_get --output "$file" --write-out '%{http_code}' "$url" 2>"$file.err")" || status=$?
	if [ "$status" -eq 0 ]; then
		return 0
	fi
	local why
	why="$(redact "$(tr '\n' ' ' <"$file.err")")"
	if [ "$code" = 404 ]; then
		fail "$what $(redact "$url") was not found (HTTP 404): version $version is not released for $os/$arch at base-url; pin a released version (see the releases page), or give a commit or a checkout directory to build from source"
	fi
	fail "downloading $what $(redact "$url") failed (HTTP ${code:-none}, curl exit status $status: ${why% }); retry, or check base-url"
}

sha256() {
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# platform sets os and arch to the release archives' names for this machine.
platform() {
	case "$(uname -s)" in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) os="$(uname -s | tr '[:upper:]' '[:lower:]')" ;;
	esac
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch="$(uname -m)" ;;
	esac
}

# latest resolves latest to a release tag through the redirect of the page
# beside the base URL; it prints nothing when that names no release.
latest() {
	local final tag
	case "$base" in
	*/download) ;;
	*) return 0 ;;
	esac
	final="$(curl_get --output /dev/null --write-out '%{url_effective}' "${base%/download}/latest" 2>/dev/null)" || return 0
	tag="${final%%[?#]*}"
	tag="${tag##*/}"
	if [[ "$tag" =~ $release_tag ]]; then
		printf '%s' "$tag"
	fi
}

resolve() {
	local version="${MCPCONFORM_VERSION:-latest}" kind tag key=""
	base_url
	platform
	if [ "$version" = latest ]; then
		tag="$(latest)"
		if [ -n "$tag" ]; then
			echo "latest is $tag ($(redact "${base%/download}/latest"))"
			version=$tag
		elif [ "${base%/download}" = "$base" ]; then
			echo "::warning title=mcpconform install::base-url $(redact "$base") does not end in /download, so latest cannot be resolved to a release; building $module/cmd/mcpconform@latest from source with go install instead (pin a version to use its release binary)"
		else
			echo "::warning title=mcpconform install::latest names no release at $(redact "${base%/download}/latest"); building $module/cmd/mcpconform@latest from source with go install instead (pin a version to use its release binary)"
		fi
	fi
	if [[ "$version" =~ $release_tag ]]; then
		kind=release
		version="v${version#v}"
		case "$os/$arch" in
		linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64) ;;
		*) fail "no release archive is built for $os/$arch (only linux and darwin, amd64 and arm64); give a commit or a checkout directory as version to build from source" ;;
		esac
		dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcpconform-$version-$os-$arch"
		key="mcpconform-$version-$os-$arch"
	else
		kind=source
		case "$version" in
		.* | /*) [ -d "$version" ] || fail "version '$version' is a path, but no such directory; give the directory of an mcpconform checkout, a release tag (v0.4.0), latest or a commit" ;;
		*) [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._/-]*$ ]] || fail "version '$version' is neither a release tag (v0.4.0), latest, a commit or branch, nor a path starting with . or /" ;;
		esac
		dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcpconform-source/bin"
	fi
	output kind "$kind"
	output version "$version"
	output os "$os"
	output arch "$arch"
	output dir "$dir"
	output cache-key "$key"
}

# installed runs the installed binary's version command and sets path.
installed() {
	if ! "$dir/mcpconform" version; then
		rm -f "$dir/mcpconform"
		fail "the installed $dir/mcpconform does not run on $os/$arch"
	fi
	output path "$dir/mcpconform"
}

install_release() {
	local name sums tmp expected got
	base_url
	if [ -x "$dir/mcpconform" ]; then
		echo "mcpconform $version: the verified binary in $dir (from the cache)"
		installed
		return
	fi
	name="mcpconform_${version#v}_${os}_${arch}.tar.gz"
	sums="mcpconform_${version#v}_checksums.txt"
	mkdir -p "$(dirname "$dir")"
	tmp="$(mktemp -d "$(dirname "$dir")/mcpconform-download.XXXXXX")"
	# shellcheck disable=SC2064 # tmp is fixed now; expand it now.
	trap "rm -rf '$tmp'" EXIT
	echo "downloading $(redact "$base/$version/$name")"
	download "$base/$version/$name" "$tmp/$name" "the release archive"
	download "$base/$version/$sums" "$tmp/$sums" "the checksums file"
	expected="$(awk -v f="$name" '{ n = $2; sub(/^\*/, "", n) } n == f { print tolower($1); exit }' "$tmp/$sums")"
	got="$(sha256 "$tmp/$name")"
	if [ -z "$expected" ]; then
		fail "$sums has no entry for $name, so it cannot be verified (expected a listed sum, got $got); not installed"
	fi
	if [ "$expected" != "$got" ]; then
		fail "checksum mismatch for $name: expected $expected (from $sums), got $got; not installed"
	fi
	echo "verified $name: sha256 $got"
	mkdir -p "$tmp/x"
	tar -xzf "$tmp/$name" -C "$tmp/x" mcpconform 2>"$tmp/tar.err" || fail "$name holds no mcpconform ($(tr '\n' ' ' <"$tmp/tar.err"))"
	if [ ! -f "$tmp/x/mcpconform" ] || [ -L "$tmp/x/mcpconform" ]; then
		fail "$name: mcpconform in it is not a regular file"
	fi
	chmod 0755 "$tmp/x/mcpconform"
	mkdir -p "$dir"
	mv -f "$tmp/x/mcpconform" "$dir/mcpconform"
	installed
}

install_source() {
	command -v go >/dev/null || fail "version $version is built from source, and go is not on PATH; set the go-version input (or install Go first), or pin a release tag such as v0.4.0"
	mkdir -p "$dir"
	case "$version" in
	.* | /*)
		echo "building mcpconform from the checkout in $version"
		(cd "$version" && GOBIN="$dir" go install ./cmd/mcpconform) || fail "go install ./cmd/mcpconform in $version failed"
		;;
	*)
		echo "building $module/cmd/mcpconform@$version from source"
		GOBIN="$dir" go install "$module/cmd/mcpconform@$version" || fail "go install $module/cmd/mcpconform@$version failed; is $version a release tag, commit or branch of $module?"
		;;
	esac
	installed
}

install() {
	version="${MCPCONFORM_VERSION:?}"
	os="${MCPCONFORM_OS:?}"
	arch="${MCPCONFORM_ARCH:?}"
	dir="${MCPCONFORM_DIR:?}"
	case "${MCPCONFORM_KIND:-}" in
	release)
		[[ "$version" =~ $release_tag ]] || fail "kind release needs a release tag, not '$version'"
		install_release
		;;
	source) install_source ;;
	*) fail "MCPCONFORM_KIND is '${MCPCONFORM_KIND:-}': run install.sh resolve first and pass its kind" ;;
	esac
}

case "${1:-}" in
resolve) resolve ;;
install) install ;;
*)
	echo "usage: install.sh resolve|install (see the comment at its top)" >&2
	exit 2
	;;
esac
