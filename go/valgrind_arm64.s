#include "textflag.h"

// func clientRequest(args *[6]uintptr, def uintptr) uintptr
//
// valgrind.h's arm64 sequence, as words so that the assembler cannot encode it
// otherwise: R4 = the request's array, R3 = the default and then the result. The four
// rotations of R12 (3+13+51+61 = 128 bits) leave it as it was and mark the ORR that
// follows as the request; outside Valgrind all five do nothing.
TEXT ·clientRequest(SB), NOSPLIT, $0-24
	MOVD args+0(FP), R4
	MOVD def+8(FP), R3
	WORD $0x93CC0D8C // ROR $3, R12
	WORD $0x93CC358C // ROR $13, R12
	WORD $0x93CCCD8C // ROR $51, R12
	WORD $0x93CCF58C // ROR $61, R12
	WORD $0xAA0A014A // ORR R10, R10, R10: the request
	MOVD R3, ret+16(FP)
	RET
