//! Builds the project's C++ shim over the system RDKit (Debian `librdkit-dev`) and links it.

fn main() {
    cxx_build::bridge("src/rdkit_ffi.rs")
        .file("cpp/shim.cc")
        .include("/usr/include/rdkit")
        .include("cpp")
        .flag("-std=c++17")
        .warnings(false)
        .compile("benchtop_rdshim");
    for lib in [
        "SmilesParse",
        "FileParsers",
        "GraphMol",
        "RDGeneral",
        "Descriptors",
        "Depictor",
        "MolDraw2D",
        "ChemTransforms",
        "SubstructMatch",
        "Fingerprints",
        "DataStructs",
        "RDGeometryLib",
    ] {
        println!("cargo:rustc-link-lib=dylib=RDKit{lib}");
    }
    println!("cargo:rerun-if-changed=cpp/shim.cc");
    println!("cargo:rerun-if-changed=cpp/shim.h");
    println!("cargo:rerun-if-changed=src/rdkit_ffi.rs");
}
