//! Valgrind client requests (valgrind.h, callgrind.h). The pipeline counts a window's
//! instructions under Callgrind with `--instr-atstart=no`: the window turns counting on
//! when it opens and off when it closes, so that start-up, setup and the record are not
//! counted. Outside Valgrind a request is a no-op that returns its default, so the
//! programs issue them always. Mirrors go/valgrind.go.

const RUNNING_ON_VALGRIND: usize = 0x1001;
/// VG_USERREQ_TOOL_BASE('C','T') + 4.
const START_INSTRUMENTATION: usize = 0x4354_0004;
const STOP_INSTRUMENTATION: usize = 0x4354_0005;

/// CALLGRIND_START_INSTRUMENTATION.
pub fn start_instrumentation() {
    request(START_INSTRUMENTATION);
}

/// CALLGRIND_STOP_INSTRUMENTATION.
pub fn stop_instrumentation() {
    request(STOP_INSTRUMENTATION);
}

/// RUNNING_ON_VALGRIND: how many Valgrinds the program runs under (0: none).
pub fn running_on_valgrind() -> usize {
    request(RUNNING_ON_VALGRIND)
}

fn request(code: usize) -> usize {
    client_request(&[code, 0, 0, 0, 0, 0], 0)
}

/// Issues the request `args[0]` with the arguments `args[1..]` and returns its result,
/// or `default` outside Valgrind: valgrind.h's amd64 sequence. RAX = the request's
/// array, RDX = the default and then the result. The four rotations of RDI (128 bits)
/// leave it as it was and mark the `xchg` that follows as the request; rdi is declared
/// clobbered all the same, and rbx is unchanged.
#[cfg(target_arch = "x86_64")]
fn client_request(args: &[usize; 6], default: usize) -> usize {
    let mut result = default;
    // SAFETY: outside Valgrind the sequence changes no register; under it, Valgrind
    // reads the six words at args.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            out("rdi") _,
            options(nostack),
        );
    }
    result
}

/// valgrind.h's arm64 sequence: X4 = the request's array, X3 = the default and then
/// the result; the four rotations of X12 (128 bits) mark the `orr` as the request.
#[cfg(target_arch = "aarch64")]
fn client_request(args: &[usize; 6], default: usize) -> usize {
    let mut result = default;
    // SAFETY: as for x86_64.
    unsafe {
        core::arch::asm!(
            "ror x12, x12, #3",
            "ror x12, x12, #13",
            "ror x12, x12, #51",
            "ror x12, x12, #61",
            "orr x10, x10, x10",
            in("x4") args.as_ptr(),
            inout("x3") result,
            out("x12") _,
            options(nostack),
        );
    }
    result
}

/// Valgrind's client requests are written only for x86_64 and aarch64; elsewhere they
/// do nothing, as they do outside Valgrind.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn client_request(_args: &[usize; 6], default: usize) -> usize {
    default
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside Valgrind a request is a no-op that returns its default. Mirrors
    /// TestValgrindRequestsAreNoOpsOutsideValgrind in go/valgrind_test.go.
    #[test]
    fn requests_are_no_ops_outside_valgrind() {
        if running_on_valgrind() != 0 {
            return;
        }
        let args = [START_INSTRUMENTATION + 100, 1, 2, 3, 4, 5];
        assert_eq!(client_request(&args, 42), 42);
        start_instrumentation();
        stop_instrumentation();
    }
}
