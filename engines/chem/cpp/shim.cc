// Benchtop's own C++ shim over the system RDKit. See shim.h.
#include "shim.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <DataStructs/ExplicitBitVect.h>
#include <DataStructs/SparseIntVect.h>
#include <map>
#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/ChemTransforms/MolFragmenter.h>
#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/Lipinski.h>
#include <GraphMol/Descriptors/MolDescriptors.h>
#include <GraphMol/Descriptors/MolSurf.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <GraphMol/Substruct/SubstructMatch.h>
#include <RDGeneral/RDLog.h>

#include "benchtop-chem/src/rdkit_ffi.rs.h"

namespace benchtop_rd {

void silence_logs() { boost::logging::disable_logs("rdApp.*"); }

void prefer_coordgen() {
  // A process-wide switch read by every compute2DCoords. It is set once, before any molecule
  // exists (the Rust side calls it under a `Once`), and a first layout with rings loads
  // CoordGen's ring templates there, so that no two threads race to load them later.
  RDDepict::preferCoordGen = true;
  std::unique_ptr<RDKit::RWMol> warm(RDKit::SmilesToMol("c1ccc2c(c1)CC1(C2)CCNCC1"));
  if (warm) RDDepict::compute2DCoords(*warm);
}

namespace {

// A fresh 2D layout of `mol` (CoordGen, see prefer_coordgen) scaled to RDKit's usual 1.5 units
// per bond (CoordGen lays bonds 1.0 long); returns the conformer's id.
int layout_2d(RDKit::RWMol &mol) {
  const int id = static_cast<int>(RDDepict::compute2DCoords(mol));
  auto &conf = mol.getConformer(id);
  double total = 0.0;
  for (const auto bond : mol.bonds()) {
    total += (conf.getAtomPos(bond->getBeginAtomIdx()) - conf.getAtomPos(bond->getEndAtomIdx()))
                 .length();
  }
  if (mol.getNumBonds() > 0 && total > 0.0) {
    const double scale = 1.5 * mol.getNumBonds() / total;
    for (auto &p : conf.getPositions()) p *= scale;
  }
  return id;
}

}  // namespace

std::unique_ptr<Mol> parse_smiles(rust::Str smiles) {
  std::string s(smiles);
  std::unique_ptr<RDKit::RWMol> m;
  try {
    m.reset(RDKit::SmilesToMol(s));
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
  if (!m) throw std::runtime_error("RDKit could not parse or sanitise it");
  return std::unique_ptr<Mol>(m.release());
}

std::unique_ptr<Mol> parse_smarts(rust::Str smarts) {
  std::string s(smarts);
  std::unique_ptr<RDKit::RWMol> m;
  try {
    m.reset(RDKit::SmartsToMol(s));
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
  if (!m) throw std::runtime_error("RDKit could not parse the SMARTS");
  return std::unique_ptr<Mol>(m.release());
}

std::unique_ptr<Mol> parse_molblock(rust::Str block, bool remove_hs) {
  std::string s(block);
  std::unique_ptr<RDKit::RWMol> m;
  try {
    m.reset(RDKit::MolBlockToMol(s, true, remove_hs));
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
  if (!m) throw std::runtime_error("RDKit could not parse or sanitise the mol block");
  return std::unique_ptr<Mol>(m.release());
}

rust::String to_smiles(const Mol &mol) { return rust::String(RDKit::MolToSmiles(mol)); }

rust::String to_molblock(const Mol &mol) {
  RDKit::RWMol copy(mol);
  const int id = layout_2d(copy);
  return rust::String(RDKit::MolToMolBlock(copy, true, id));
}

std::uint32_t num_atoms(const Mol &mol) { return mol.getNumAtoms(); }

double amw(const Mol &mol) { return RDKit::Descriptors::calcAMW(mol); }

double clogp(const Mol &mol) { return RDKit::Descriptors::calcClogP(mol); }

double tpsa(const Mol &mol) { return RDKit::Descriptors::calcTPSA(mol); }

std::uint32_t num_hbd(const Mol &mol) { return RDKit::Descriptors::calcNumHBD(mol); }

std::uint32_t num_rotatable_strict(const Mol &mol) {
  return RDKit::Descriptors::calcNumRotatableBonds(mol, RDKit::Descriptors::Strict);
}

std::uint32_t num_spiro(const Mol &mol) { return RDKit::Descriptors::calcNumSpiroAtoms(mol); }

std::uint32_t num_bridgehead(const Mol &mol) {
  return RDKit::Descriptors::calcNumBridgeheadAtoms(mol);
}

std::uint32_t num_macrocycles(const Mol &mol) {
  std::uint32_t n = 0;
  for (const auto &ring : mol.getRingInfo()->atomRings()) {
    if (ring.size() > 8) ++n;
  }
  return n;
}

std::uint32_t num_chiral_centres(const Mol &mol) {
  RDKit::RWMol copy(mol);
  RDKit::MolOps::assignStereochemistry(copy, true, true, true);
  std::uint32_t n = 0;
  for (const auto atom : copy.atoms()) {
    if (atom->hasProp(RDKit::common_properties::_CIPCode) ||
        atom->hasProp(RDKit::common_properties::_ChiralityPossible)) {
      ++n;
    }
  }
  return n;
}

std::unique_ptr<Mol> remove_hs(const Mol &mol) {
  try {
    return std::unique_ptr<Mol>(RDKit::MolOps::removeHs(mol));
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
}

std::uint32_t match_count(const Mol &mol, const Mol &query, std::uint32_t max_matches) {
  RDKit::SubstructMatchParameters params;
  params.maxMatches = max_matches;
  return static_cast<std::uint32_t>(RDKit::SubstructMatch(mol, query, params).size());
}

void match_atoms(const Mol &mol, const Mol &query, std::uint32_t max_matches,
                 rust::Vec<std::uint32_t> &atoms) {
  RDKit::SubstructMatchParameters params;
  params.maxMatches = max_matches;
  for (const auto &match : RDKit::SubstructMatch(mol, query, params)) {
    for (const auto &pair : match) atoms.push_back(static_cast<std::uint32_t>(pair.second));
  }
}

std::uint32_t sssr_after_delete(const Mol &mol, const Mol &query) {
  std::unique_ptr<Mol> rest(RDKit::deleteSubstructs(mol, query));
  if (!rest) throw std::runtime_error("deleteSubstructs failed");
  RDKit::VECT_INT_VECT rings;
  return static_cast<std::uint32_t>(RDKit::MolOps::findSSSR(*rest, rings));
}

void morgan_counts(const Mol &mol, std::uint32_t radius, rust::Vec<std::uint32_t> &ids,
                   rust::Vec<std::uint32_t> &counts) {
  std::unique_ptr<RDKit::SparseIntVect<std::uint32_t>> fp(
      RDKit::MorganFingerprints::getFingerprint(mol, radius));
  if (!fp) throw std::runtime_error("Morgan fingerprint failed");
  for (const auto &kv : fp->getNonzeroElements()) {
    ids.push_back(kv.first);
    counts.push_back(static_cast<std::uint32_t>(kv.second));
  }
}

void morgan_bits(const Mol &mol, std::uint32_t radius, std::uint32_t n_bits,
                 rust::Vec<std::uint32_t> &on_bits) {
  std::unique_ptr<ExplicitBitVect> fp(
      RDKit::MorganFingerprints::getFingerprintAsBitVect(mol, radius, n_bits));
  if (!fp) throw std::runtime_error("Morgan bit fingerprint failed");
  std::vector<int> on;
  fp->getOnBits(on);
  for (int bit : on) on_bits.push_back(static_cast<std::uint32_t>(bit));
}

rust::String atoms_and_bonds(const Mol &mol, bool compute_2d, rust::Vec<AtomInfo> &atoms,
                             rust::Vec<BondInfo> &bonds) {
  RDKit::RWMol copy(mol);
  const RDKit::Conformer *conf = nullptr;
  std::string block;
  if (compute_2d) {
    const int id = layout_2d(copy);
    conf = &copy.getConformer(id);
    block = RDKit::MolToMolBlock(copy, true, id);
  }
  for (const auto atom : copy.atoms()) {
    AtomInfo info{};
    if (conf) {
      const auto &p = conf->getAtomPos(atom->getIdx());
      info.x = p.x;
      info.y = p.y;
    }
    info.atomic_num = atom->getAtomicNum();
    info.isotope = atom->getIsotope();
    info.formal_charge = atom->getFormalCharge();
    info.map_num = static_cast<std::uint32_t>(atom->getAtomMapNum());
    info.aromatic = atom->getIsAromatic();
    info.total_hs = atom->getTotalNumHs();
    atoms.push_back(info);
  }
  for (const auto bond : copy.bonds()) {
    BondInfo info{};
    info.begin = bond->getBeginAtomIdx();
    info.end = bond->getEndAtomIdx();
    switch (bond->getBondType()) {
      case RDKit::Bond::SINGLE: info.kind = 1; break;
      case RDKit::Bond::DOUBLE: info.kind = 2; break;
      case RDKit::Bond::TRIPLE: info.kind = 3; break;
      case RDKit::Bond::AROMATIC: info.kind = 4; break;
      default: info.kind = 0; break;
    }
    bonds.push_back(info);
  }
  return rust::String(block);
}

rust::String depict_svg(const Mol &mol, bool compute_2d, const Canvas &canvas,
                        rust::Slice<const std::uint32_t> atoms,
                        rust::Slice<const std::uint32_t> colours) {
  if (atoms.size() != colours.size()) throw std::runtime_error("atoms and colours differ in length");
  if (canvas.width == 0 || canvas.height == 0) throw std::runtime_error("the picture has no area");
  try {
    RDKit::RWMol copy(mol);
    if (compute_2d || copy.getNumConformers() == 0) layout_2d(copy);
    std::vector<int> highlight_atoms;
    std::map<int, RDKit::DrawColour> atom_colours;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (atoms[i] >= copy.getNumAtoms()) {
        throw std::runtime_error("highlighted atom " + std::to_string(atoms[i]) +
                                 " is out of range (the molecule has " +
                                 std::to_string(copy.getNumAtoms()) + " atoms)");
      }
      const std::uint32_t c = colours[i];
      const RDKit::DrawColour colour(((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
                                     (c & 0xff) / 255.0);
      const int idx = static_cast<int>(atoms[i]);
      if (atom_colours.emplace(idx, colour).second) highlight_atoms.push_back(idx);
      else atom_colours[idx] = colour;
    }
    // A bond is highlighted where both its atoms carry the same colour (one fragment).
    std::vector<int> highlight_bonds;
    std::map<int, RDKit::DrawColour> bond_colours;
    for (const auto bond : copy.bonds()) {
      const auto a = atom_colours.find(static_cast<int>(bond->getBeginAtomIdx()));
      const auto b = atom_colours.find(static_cast<int>(bond->getEndAtomIdx()));
      if (a != atom_colours.end() && b != atom_colours.end() && a->second == b->second) {
        const int idx = static_cast<int>(bond->getIdx());
        highlight_bonds.push_back(idx);
        bond_colours[idx] = a->second;
      }
    }
    RDKit::MolDraw2DSVG drawer(static_cast<int>(canvas.width), static_cast<int>(canvas.height));
    drawer.drawOptions().clearBackground = canvas.white_background;
    drawer.drawOptions().backgroundColour = RDKit::DrawColour(1.0, 1.0, 1.0, 1.0);
    // Positive: bonds this long unless the molecule would not fit (RDKit's own rule). RDKit
    // counts pixels per coordinate unit; layout_2d makes bonds 1.5 units long.
    // Labels stay legible on small pictures (RDKit's floor is 6 px).
    drawer.drawOptions().minFontSize = 9;
    drawer.drawOptions().fixedBondLength =
        canvas.bond_length_px > 0.0 ? canvas.bond_length_px / 1.5 : -1.0;
    drawer.drawMolecule(copy, &highlight_atoms, &highlight_bonds, &atom_colours, &bond_colours);
    drawer.finishDrawing();
    return rust::String(drawer.getDrawingText());
  } catch (const std::runtime_error &) {
    throw;
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
}

rust::Vec<rust::String> brics_fragments(const Mol &mol) {
  std::unique_ptr<Mol> broken(RDKit::MolFragmenter::fragmentOnBRICSBonds(mol));
  if (!broken) throw std::runtime_error("BRICS fragmentation failed");
  rust::Vec<rust::String> out;
  for (const auto &frag : RDKit::MolOps::getMolFrags(*broken, true)) {
    out.push_back(rust::String(RDKit::MolToSmiles(*frag)));
  }
  return out;
}

std::unique_ptr<Mol> with_atom_maps(const Mol &mol, rust::Slice<const std::uint32_t> indices,
                                    rust::Slice<const std::uint32_t> maps) {
  if (indices.size() != maps.size()) throw std::runtime_error("indices and maps differ in length");
  std::unique_ptr<RDKit::RWMol> copy(new RDKit::RWMol(mol));
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= copy->getNumAtoms()) throw std::runtime_error("atom index out of range");
    copy->getAtomWithIdx(indices[i])->setAtomMapNum(static_cast<int>(maps[i]));
  }
  return std::unique_ptr<Mol>(copy.release());
}

std::unique_ptr<Mol> zip_pair(const Mol &a, const Mol &b) {
  try {
    RDKit::MolzipParams params;
    params.label = RDKit::MolzipLabel::AtomMapNumber;
    auto out = RDKit::molzip(a, b, params);
    if (!out) throw std::runtime_error("molzip returned nothing");
    return out;
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
}

std::unique_ptr<Mol> cap_dummies(const Mol &mol) {
  try {
    std::unique_ptr<RDKit::RWMol> copy(new RDKit::RWMol(mol));
    for (auto atom : copy->atoms()) {
      if (atom->getAtomicNum() == 0) {
        atom->setAtomicNum(1);
        atom->setIsotope(0);
        atom->setAtomMapNum(0);
        atom->setIsAromatic(false);
      }
    }
    for (auto atom : copy->atoms()) atom->setAtomMapNum(0);
    RDKit::MolOps::removeHs(*copy);
    RDKit::MolOps::sanitizeMol(*copy);
    return std::unique_ptr<Mol>(copy.release());
  } catch (const std::exception &e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace benchtop_rd
