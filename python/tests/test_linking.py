"""The extension binds its own BLAS symbols (-Bsymbolic): no other BLAS in the process can
interpose on them."""
import ctypes
import struct
import sys

import pytest

from sosdp import _core

DT_SYMBOLIC, DT_FLAGS, DF_SYMBOLIC = 16, 30, 0x2


def dynamic_entries(path):
    """The (tag, value) pairs of an ELF64 little-endian file's .dynamic section."""
    data = open(path, "rb").read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit little-endian ELF"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        sh_type, = struct.unpack_from("<I", data, shoff + i * shentsize + 4)
        if sh_type == 6:  # SHT_DYNAMIC
            offset, size = struct.unpack_from("<QQ", data, shoff + i * shentsize + 0x18)
            return [struct.unpack_from("<qQ", data, offset + k) for k in range(0, size, 16)]
    return []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF linking flags")
def test_the_extension_is_linked_symbolic_and_exports_its_blas():
    entries = dynamic_entries(_core.__file__)
    assert entries, "no dynamic section"
    symbolic = any(tag == DT_SYMBOLIC for tag, _ in entries) or any(
        tag == DT_FLAGS and value & DF_SYMBOLIC for tag, value in entries
    )
    assert symbolic, "the extension is not linked with -Bsymbolic"
    # ... and exports its own BLAS (the symbols -Bsymbolic binds).
    library = ctypes.CDLL(_core.__file__)
    assert library.dgemm_ and library.dpotrf_
