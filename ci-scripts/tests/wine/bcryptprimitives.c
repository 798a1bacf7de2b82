/* A stand-in for Windows' bcryptprimitives.dll, for running Go binaries under Wine 8,
 * which lacks it. Go (1.24 and later) takes its randomness from ProcessPrng there and
 * stops at start-up without it. This one fills the buffer from RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. Built with mingw-w64 by the Wine
 * test; never shipped or used on real Windows. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        length -= n;
    }
    return TRUE;
}
