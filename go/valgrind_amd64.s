#include "textflag.h"

// func clientRequest(args *[6]uintptr, def uintptr) uintptr
//
// valgrind.h's amd64 sequence, as bytes so that the assembler cannot encode it
// otherwise: RAX = the request's array, RDX = the default and then the result. The
// four rotations of DI (3+13+61+51 = 128 bits) leave it as it was and mark the XCHGQ
// that follows as the request; outside Valgrind all five do nothing. BX is unchanged.
TEXT ·clientRequest(SB), NOSPLIT, $0-24
	MOVQ args+0(FP), AX
	MOVQ def+8(FP), DX
	BYTE $0x48; BYTE $0xC1; BYTE $0xC7; BYTE $0x03 // ROLQ $3, DI
	BYTE $0x48; BYTE $0xC1; BYTE $0xC7; BYTE $0x0D // ROLQ $13, DI
	BYTE $0x48; BYTE $0xC1; BYTE $0xC7; BYTE $0x3D // ROLQ $61, DI
	BYTE $0x48; BYTE $0xC1; BYTE $0xC7; BYTE $0x33 // ROLQ $51, DI
	BYTE $0x48; BYTE $0x87; BYTE $0xDB             // XCHGQ BX, BX: the request
	MOVQ DX, ret+16(FP)
	RET
