// Benchtop's own C++ shim over the system RDKit (Debian librdkit-dev 2022.09).
// One small function per call; every failure is thrown as std::runtime_error so that cxx turns
// it into a Rust `Err`.
#pragma once

#include <memory>

#include <GraphMol/ROMol.h>

#include "rust/cxx.h"

namespace benchtop_rd {

using Mol = RDKit::ROMol;
struct AtomInfo;
struct BondInfo;
struct Canvas;

void silence_logs();
void prefer_coordgen();
std::unique_ptr<Mol> parse_smiles(rust::Str smiles);
std::unique_ptr<Mol> parse_smarts(rust::Str smarts);
std::unique_ptr<Mol> parse_molblock(rust::Str block, bool remove_hs);
rust::String to_smiles(const Mol &mol);
rust::String to_molblock(const Mol &mol);
std::uint32_t num_atoms(const Mol &mol);
double amw(const Mol &mol);
double clogp(const Mol &mol);
double tpsa(const Mol &mol);
std::uint32_t num_hbd(const Mol &mol);
std::uint32_t num_rotatable_strict(const Mol &mol);
std::uint32_t num_spiro(const Mol &mol);
std::uint32_t num_bridgehead(const Mol &mol);
std::uint32_t num_macrocycles(const Mol &mol);
std::uint32_t num_chiral_centres(const Mol &mol);
std::unique_ptr<Mol> remove_hs(const Mol &mol);
std::uint32_t match_count(const Mol &mol, const Mol &query, std::uint32_t max_matches);
void match_atoms(const Mol &mol, const Mol &query, std::uint32_t max_matches,
                 rust::Vec<std::uint32_t> &atoms);
std::uint32_t sssr_after_delete(const Mol &mol, const Mol &query);
void morgan_counts(const Mol &mol, std::uint32_t radius, rust::Vec<std::uint32_t> &ids,
                   rust::Vec<std::uint32_t> &counts);
void morgan_bits(const Mol &mol, std::uint32_t radius, std::uint32_t n_bits,
                 rust::Vec<std::uint32_t> &on_bits);
rust::String atoms_and_bonds(const Mol &mol, bool compute_2d, rust::Vec<AtomInfo> &atoms,
                             rust::Vec<BondInfo> &bonds);
rust::String depict_svg(const Mol &mol, bool compute_2d, const Canvas &canvas,
                        rust::Slice<const std::uint32_t> atoms,
                        rust::Slice<const std::uint32_t> colours);
rust::Vec<rust::String> brics_fragments(const Mol &mol);
std::unique_ptr<Mol> with_atom_maps(const Mol &mol, rust::Slice<const std::uint32_t> indices,
                                    rust::Slice<const std::uint32_t> maps);
std::unique_ptr<Mol> zip_pair(const Mol &a, const Mol &b);
std::unique_ptr<Mol> cap_dummies(const Mol &mol);

}  // namespace benchtop_rd
