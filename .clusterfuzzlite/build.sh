#!/bin/bash -eu
# Builds every native Go fuzz target (go test -fuzz) as a libFuzzer binary
# with OSS-Fuzz's compile_native_go_fuzzer, which rewrites the target's file
# onto github.com/AdamKorcz/go-118-fuzz-build/testing; that package must be
# in go.mod for the build, so it is added here, in the build container only.
# Each target's file uses nothing from the package's other test files, which
# that build does not compile.

go get github.com/AdamKorcz/go-118-fuzz-build/testing

# compile_native_go_fuzzer <package> <FuzzName> <binary name>
compile_native_go_fuzzer github.com/mcpconform/mcpconform/harness/jsonrpc FuzzClassifyLine fuzz_classify_line
compile_native_go_fuzzer github.com/mcpconform/mcpconform/harness/jsonrpc FuzzDecode fuzz_decode
compile_native_go_fuzzer github.com/mcpconform/mcpconform/harness/sse FuzzSSEReader fuzz_sse_reader
compile_native_go_fuzzer github.com/mcpconform/mcpconform/harness/transcript FuzzNormalise fuzz_normalise
