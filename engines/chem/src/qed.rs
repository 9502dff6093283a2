//! QED, the quantitative estimate of drug-likeness (Bickerton et al., Nature Chemistry 2012),
//! as RDKit's `rdkit/Chem/QED.py` computes it (ported; BSD-3, the SMARTS and ADS parameters are
//! RDKit's data).
//!
//! Eight properties (MW, ALOGP, HBA, HBD, PSA, ROTB, AROM, ALERTS) are each mapped through an
//! asymmetric double sigmoid (ADS) desirability function; QED is the weighted geometric mean
//! `exp(Σ wᵢ ln dᵢ / Σ wᵢ)` with RDKit's mean weights.

use crate::error::ChemError;
use crate::mol::{Molecule, Pattern};

/// The eight QED input properties of one molecule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QedProperties {
    /// Average molecular weight, g/mol.
    pub mw: f64,
    /// Crippen logP.
    pub alogp: f64,
    /// Hydrogen-bond acceptors (matches of the acceptor SMARTS).
    pub hba: f64,
    /// Hydrogen-bond donors.
    pub hbd: f64,
    /// Topological polar surface area, Å².
    pub psa: f64,
    /// Rotatable bonds (strict).
    pub rotb: f64,
    /// Aromatic rings (SSSR after deleting aliphatic ring atoms).
    pub arom: f64,
    /// Number of structural alerts that match.
    pub alerts: f64,
}

impl QedProperties {
    fn as_array(&self) -> [f64; 8] {
        [
            self.mw,
            self.alogp,
            self.hba,
            self.hbd,
            self.psa,
            self.rotb,
            self.arom,
            self.alerts,
        ]
    }
}

/// Parameters of one asymmetric double sigmoid: A, B, C, D, E, F, DMAX.
#[derive(Debug, Clone, Copy)]
struct Ads {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
    dmax: f64,
}

impl Ads {
    fn desirability(&self, x: f64) -> f64 {
        let exp1 = 1.0 + (-(x - self.c + self.d / 2.0) / self.e).exp();
        let exp2 = 1.0 + (-(x - self.c - self.d / 2.0) / self.f).exp();
        let dx = self.a + self.b / exp1 * (1.0 - 1.0 / exp2);
        dx / self.dmax
    }
}

/// ADS parameters in property order MW, ALOGP, HBA, HBD, PSA, ROTB, AROM, ALERTS.
const ADS: [Ads; 8] = [
    Ads {
        a: 2.817065973,
        b: 392.5754953,
        c: 290.7489764,
        d: 2.419764353,
        e: 49.22325677,
        f: 65.37051707,
        dmax: 104.9805561,
    },
    Ads {
        a: 3.172690585,
        b: 137.8624751,
        c: 2.534937431,
        d: 4.581497897,
        e: 0.822739154,
        f: 0.576295591,
        dmax: 131.3186604,
    },
    Ads {
        a: 2.948620388,
        b: 160.4605972,
        c: 3.615294657,
        d: 4.435986202,
        e: 0.290141953,
        f: 1.300669958,
        dmax: 148.7763046,
    },
    Ads {
        a: 1.618662227,
        b: 1010.051101,
        c: 0.985094388,
        d: 0.000000001,
        e: 0.713820843,
        f: 0.920922555,
        dmax: 258.1632616,
    },
    Ads {
        a: 1.876861559,
        b: 125.2232657,
        c: 62.90773554,
        d: 87.83366614,
        e: 12.01999824,
        f: 28.51324732,
        dmax: 104.5686167,
    },
    Ads {
        a: 0.010000000,
        b: 272.4121427,
        c: 2.558379970,
        d: 1.565547684,
        e: 1.271567166,
        f: 2.758063707,
        dmax: 105.4420403,
    },
    Ads {
        a: 3.217788970,
        b: 957.7374108,
        c: 2.274627939,
        d: 0.000000001,
        e: 1.317690384,
        f: 0.375760881,
        dmax: 312.3372610,
    },
    Ads {
        a: 0.010000000,
        b: 1199.094025,
        c: -0.09002883,
        d: 0.000000001,
        e: 0.185904477,
        f: 0.875193782,
        dmax: 417.7253140,
    },
];

/// RDKit's default ("mean") weights, same order as [`ADS`].
const WEIGHT_MEAN: [f64; 8] = [0.66, 0.46, 0.05, 0.61, 0.06, 0.65, 0.48, 0.95];

/// Atoms of aliphatic rings (and their non-aromatic neighbours), deleted before counting
/// aromatic rings.
const ALIPHATIC_RINGS_SMARTS: &str = "[$([A;R][!a])]";

/// Hydrogen-bond acceptor patterns (each match counts).
const ACCEPTOR_SMARTS: [&str; 11] = [
    "[oH0;X2]",
    "[OH1;X2;v2]",
    "[OH0;X2;v2]",
    "[OH0;X1;v2]",
    "[O-;X1]",
    "[SH0;X2;v2]",
    "[SH0;X1;v2]",
    "[S-;X1]",
    "[nH0;X2]",
    "[NH0;X1;v3]",
    "[$([N;+0;X3;v3]);!$(N[C,S]=O)]",
];
/// Structural alerts (each pattern that matches counts once).
const ALERT_SMARTS: [&str; 116] = [
    "*1[O,S,N]*1",
    "[S,C](=[O,S])[F,Br,Cl,I]",
    "[CX4][Cl,Br,I]",
    "[#6]S(=O)(=O)O[#6]",
    "[$([CH]),$(CC)]#CC(=O)[#6]",
    "[$([CH]),$(CC)]#CC(=O)O[#6]",
    "n[OH]",
    "[$([CH]),$(CC)]#CS(=O)(=O)[#6]",
    "C=C(C=O)C=O",
    "n1c([F,Cl,Br,I])cccc1",
    "[CH1](=O)",
    "[#8][#8]",
    "[C;!R]=[N;!R]",
    "[N!R]=[N!R]",
    "[#6](=O)[#6](=O)",
    "[#16][#16]",
    "[#7][NH2]",
    "C(=O)N[NH2]",
    "[#6]=S",
    "[$([CH2]),$([CH][CX4]),$(C([CX4])[CX4])]=[$([CH2]),$([CH][CX4]),$(C([CX4])[CX4])]",
    "C1(=[O,N])C=CC(=[O,N])C=C1",
    "C1(=[O,N])C(=[O,N])C=CC=C1",
    "a21aa3a(aa1aaaa2)aaaa3",
    "a31a(a2a(aa1)aaaa2)aaaa3",
    "a1aa2a3a(a1)A=AA=A3=AA=A2",
    "c1cc([NH2])ccc1",
    "[Hg,Fe,As,Sb,Zn,Se,se,Te,B,Si,Na,Ca,Ge,Ag,Mg,K,Ba,Sr,Be,Ti,Mo,Mn,Ru,Pd,Ni,Cu,Au,Cd,Al,Ga,Sn,Rh,Tl,Bi,Nb,Li,Pb,Hf,Ho]",
    "I",
    "OS(=O)(=O)[O-]",
    "[N+](=O)[O-]",
    "C(=O)N[OH]",
    "C1NC(=O)NC(=O)1",
    "[SH]",
    "[S-]",
    "c1ccc([Cl,Br,I,F])c([Cl,Br,I,F])c1[Cl,Br,I,F]",
    "c1cc([Cl,Br,I,F])cc([Cl,Br,I,F])c1[Cl,Br,I,F]",
    "[CR1]1[CR1][CR1][CR1][CR1][CR1][CR1]1",
    "[CR1]1[CR1][CR1]cc[CR1][CR1]1",
    "[CR2]1[CR2][CR2][CR2][CR2][CR2][CR2][CR2]1",
    "[CR2]1[CR2][CR2]cc[CR2][CR2][CR2]1",
    "[CH2R2]1N[CH2R2][CH2R2][CH2R2][CH2R2][CH2R2]1",
    "[CH2R2]1N[CH2R2][CH2R2][CH2R2][CH2R2][CH2R2][CH2R2]1",
    "C#C",
    "[OR2,NR2]@[CR2]@[CR2]@[OR2,NR2]@[CR2]@[CR2]@[OR2,NR2]",
    "[$([N+R]),$([n+R]),$([N+]=C)][O-]",
    "[#6]=N[OH]",
    "[#6]=NOC=O",
    "[#6](=O)[CX4,CR0X3,O][#6](=O)",
    "c1ccc2c(c1)ccc(=O)o2",
    "[O+,o+,S+,s+]",
    "N=C=O",
    "[NX3,NX4][F,Cl,Br,I]",
    "c1ccccc1OC(=O)[#6]",
    "[CR0]=[CR0][CR0]=[CR0]",
    "[C+,c+,C-,c-]",
    "N=[N+]=[N-]",
    "C12C(NC(N1)=O)CSC2",
    "c1c([OH])c([OH,NH2,NH])ccc1",
    "P",
    "[N,O,S]C#N",
    "C=C=O",
    "[Si][F,Cl,Br,I]",
    "[SX2]O",
    "[SiR0,CR0](c1ccccc1)(c2ccccc2)(c3ccccc3)",
    "O1CCCCC1OC2CCC3CCCCC3C2",
    "N=[CR0][N,n,O,S]",
    "[cR2]1[cR2][cR2]([Nv3X3,Nv4X4])[cR2][cR2][cR2]1[cR2]2[cR2][cR2][cR2]([Nv3X3,Nv4X4])[cR2][cR2]2",
    "C=[C!r]C#N",
    "[cR2]1[cR2]c([N+0X3R0,nX3R0])c([N+0X3R0,nX3R0])[cR2][cR2]1",
    "[cR2]1[cR2]c([N+0X3R0,nX3R0])[cR2]c([N+0X3R0,nX3R0])[cR2]1",
    "[cR2]1[cR2]c([N+0X3R0,nX3R0])[cR2][cR2]c1([N+0X3R0,nX3R0])",
    "[OH]c1ccc([OH,NH2,NH])cc1",
    "c1ccccc1OC(=O)O",
    "[SX2H0][N]",
    "c12ccccc1(SC(S)=N2)",
    "c12ccccc1(SC(=S)N2)",
    "c1nnnn1C=O",
    "s1c(S)nnc1NC=O",
    "S1C=CSC1=S",
    "C(=O)Onnn",
    "OS(=O)(=O)C(F)(F)F",
    "N#CC[OH]",
    "N#CC(=O)",
    "S(=O)(=O)C#N",
    "N[CH2]C#N",
    "C1(=O)NCC1",
    "S(=O)(=O)[O-,OH]",
    "NC[F,Cl,Br,I]",
    "C=[C!r]O",
    "[NX2+0]=[O+0]",
    "[OR0,NR0][OR0,NR0]",
    "C(=O)O[C,H1].C(=O)O[C,H1].C(=O)O[C,H1]",
    "[CX2R0][NX3R0]",
    "c1ccccc1[C;!R]=[C;!R]c2ccccc2",
    "[NX3R0,NX4R0,OR0,SX2R0][CX4][NX3R0,NX4R0,OR0,SX2R0]",
    "[s,S,c,C,n,N,o,O]~[n+,N+](~[s,S,c,C,n,N,o,O])(~[s,S,c,C,n,N,o,O])~[s,S,c,C,n,N,o,O]",
    "[s,S,c,C,n,N,o,O]~[nX3+,NX3+](~[s,S,c,C,n,N])~[s,S,c,C,n,N]",
    "[*]=[N+]=[*]",
    "[SX3](=O)[O-,OH]",
    "N#N",
    "F.F.F.F",
    "[R0;D2][R0;D2][R0;D2][R0;D2]",
    "[cR,CR]~C(=O)NC(=O)~[cR,CR]",
    "C=!@CC=[O,S]",
    "[#6,#8,#16][#6](=O)O[#6]",
    "c[C;R0](=[O,S])[#6]",
    "c[SX2][C;!R]",
    "C=C=C",
    "c1nc([F,Cl,Br,I,S])ncc1",
    "c1ncnc([F,Cl,Br,I,S])c1",
    "c1nc(c2c(n1)nc(n2)[F,Cl,Br,I])",
    "[#6]S(=O)(=O)c1ccc(cc1)F",
    "[15N]",
    "[13C]",
    "[18O]",
    "[34S]",
];

/// The QED SMARTS, compiled once per thread.
struct QedPatterns {
    aliphatic_rings: Pattern,
    acceptors: Vec<Pattern>,
    alerts: Vec<Pattern>,
}

impl QedPatterns {
    fn compile() -> Result<Self, ChemError> {
        let compile_all = |list: &[&str]| {
            list.iter()
                .map(|s| Pattern::from_smarts(s))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Self {
            aliphatic_rings: Pattern::from_smarts(ALIPHATIC_RINGS_SMARTS)?,
            acceptors: compile_all(&ACCEPTOR_SMARTS)?,
            alerts: compile_all(&ALERT_SMARTS)?,
        })
    }
}

thread_local! {
    // RDKit molecules are not `Sync`, so each thread compiles the patterns once.
    static PATTERNS: Result<QedPatterns, ChemError> = QedPatterns::compile();
}

/// Python's `GetSubstructMatches` default cap on the number of matches.
const MAX_MATCHES: u32 = 1000;

/// The eight QED properties of `mol` (computed on a copy without explicit hydrogens).
pub fn qed_properties(mol: &Molecule) -> Result<QedProperties, ChemError> {
    let m = mol.without_hs()?;
    PATTERNS.with(|patterns| {
        let p = patterns.as_ref().map_err(Clone::clone)?;
        let mut hba = 0_u32;
        for q in &p.acceptors {
            hba += m.count_matches(q, MAX_MATCHES)?;
        }
        let mut alerts = 0_u32;
        for q in &p.alerts {
            alerts += u32::from(m.has_match(q)?);
        }
        Ok(QedProperties {
            mw: m.mol_weight_g_per_mol()?,
            alogp: m.crippen_logp()?,
            hba: f64::from(hba),
            hbd: f64::from(m.num_hbd()?),
            psa: m.tpsa_a2()?,
            rotb: f64::from(m.num_rotatable_bonds()?),
            arom: f64::from(m.sssr_after_deleting(&p.aliphatic_rings)?),
            alerts: f64::from(alerts),
        })
    })
}

/// QED from precomputed properties, with RDKit's mean weights.
pub fn qed_from_properties(props: &QedProperties) -> f64 {
    let x = props.as_array();
    let mut t = 0.0;
    for i in 0..8 {
        t += WEIGHT_MEAN[i] * ADS[i].desirability(x[i]).ln();
    }
    (t / WEIGHT_MEAN.iter().sum::<f64>()).exp()
}

/// QED of `mol`, in (0, 1].
pub fn qed(mol: &Molecule) -> Result<f64, ChemError> {
    Ok(qed_from_properties(&qed_properties(mol)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qed_paper_examples() {
        // The doctest molecules of RDKit's QED.py (0.253..., 0.234..., 0.234... there); the
        // full values are Python RDKit 2026.09.1's `QED.qed`.
        for (smiles, want) in [
            (
                "N=C(CCSCc1csc(N=C(N)N)n1)NS(N)(=O)=O",
                0.253_142_577_330_055_7,
            ),
            ("CNC(=NCCSCc1nc[nH]c1C)NC#N", 0.234_658_809_754_529_7),
            (
                "CCCCCNC(=N)NN=Cc1c[nH]c2ccc(CO)cc12",
                0.234_871_537_967_085_6,
            ),
        ] {
            let got = qed(&Molecule::from_smiles(smiles).unwrap()).unwrap();
            assert!((got - want).abs() < 1e-12, "{smiles}: {got}");
        }
    }

    #[test]
    fn aspirin_properties() {
        let p = qed_properties(&Molecule::from_smiles("CC(=O)Oc1ccccc1C(=O)O").unwrap()).unwrap();
        assert_eq!(p.hba, 4.0);
        assert_eq!(p.hbd, 1.0);
        assert_eq!(p.arom, 1.0);
        assert_eq!(p.rotb, 2.0);
        // Phenyl ester alert 'c1ccccc1OC(=O)[#6]' and '[#6,#8,#16][#6](=O)O[#6]'.
        assert_eq!(p.alerts, 2.0);
    }

    #[test]
    fn all_patterns_compile() {
        PATTERNS.with(|p| {
            let p = p.as_ref().unwrap();
            assert_eq!(p.acceptors.len(), 11);
            assert_eq!(p.alerts.len(), 116);
        });
    }
}
