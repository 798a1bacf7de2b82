/* Wine's append race, without Go or Rust: 16 threads of one process each open a file
 * with FILE_APPEND_DATA, append 16 bytes and close it, 2000 times. On Windows (and with
 * O_APPEND on Linux) every append lands; under Wine 8 some overwrite each other. It is
 * why files-rw under Wine sometimes reports one append fewer, in Go and in Rust alike.
 * Prints "size <bytes> expected <bytes> lost <appends>". */
#include <windows.h>
#include <stdio.h>
#define THREADS 16
#define PER 2000
static const char *path = "append-test.txt";
static DWORD WINAPI worker(LPVOID arg) {
    for (int i = 0; i < PER; i++) {
        HANDLE h = CreateFileA(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE) { printf("open failed %lu\n", GetLastError()); return 1; }
        DWORD n; if (!WriteFile(h, "Appended string\n", 16, &n, NULL) || n != 16) printf("write failed\n");
        CloseHandle(h);
    }
    return 0;
}
int main(void) {
    DeleteFileA(path);
    HANDLE t[THREADS];
    for (int i = 0; i < THREADS; i++) t[i] = CreateThread(NULL, 0, worker, NULL, 0, NULL);
    WaitForMultipleObjects(THREADS, t, TRUE, INFINITE);
    WIN32_FILE_ATTRIBUTE_DATA a; GetFileAttributesExA(path, GetFileExInfoStandard, &a);
    printf("size %lu expected %d lost %ld\n", a.nFileSizeLow, THREADS * PER * 16, (long)(THREADS * PER * 16 - (long)a.nFileSizeLow) / 16);
    return 0;
}
