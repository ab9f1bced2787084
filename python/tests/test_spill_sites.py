"""test/Device/spill_sites.py: the device round's split of a kernel's spills
between the producer warp and the consumers, on SASS text."""
import importlib.util
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "spill_sites", os.path.join(REPO, "test", "Device", "spill_sites.py"))
spill_sites = importlib.util.module_from_spec(spec)
spec.loader.exec_module(spill_sites)


def test_spills_are_counted_in_the_region_they_are_in():
    text = """
        /*0010*/  STL [R1], R2 ;
        /*0270*/  USETMAXREG.DEALLOC.CTAPOOL 0x18 ;
        /*1e00*/  STL.64 [R1], R6  (*"SpillRefill"*);
        /*1ed0*/  LDL.LU.64 R6, [R1]  (*"SpillRefill"*);
        /*2dd0*/  USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xf0 ;
        /*36b0*/  HGMMA.64x128x16.F32.BF16 R24, gdesc[UR12], RZ, !UPT ;
        /*3700*/  LDL R8, [R1+0x8] ;
    """
    assert spill_sites.spill_sites(text) == [1, 2, 1]


def test_a_kernel_without_setmaxnreg_counts_its_spills_as_prologue():
    assert spill_sites.spill_sites("  STL [R1], R0 ;\n  LDL R0, [R1] ;\n") == [2, 0, 0]


def test_names_that_only_contain_ldl_are_not_spills():
    assert spill_sites.spill_sites("  LDLX R0 ;\n  MOV R1, R2 ;\n") == [0, 0, 0]
