//! The tasks' fixed stimuli. The authors' repository publishes its sequences without a licence,
//! so nothing is vendored: the n-back letters, WCST test cards and weather device states are
//! regenerated from the paper's rules with a fixed seed, and the oddball paragraphs are our own.

use benchtop_compute::rng::{derive_seed, seeded};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// n-back letters (the paper's alphabet).
pub const LETTERS: [char; 4] = ['E', 'F', 'G', 'H'];

/// WCST shapes.
pub const SHAPES: [&str; 4] = ["triangle", "cross", "circle", "star"];
/// WCST colours.
pub const COLORS: [&str; 4] = ["red", "green", "yellow", "blue"];

/// A WCST card: shape, colour and number, each an index (number is 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    /// Index into [`SHAPES`].
    pub shape: usize,
    /// Index into [`COLORS`].
    pub color: usize,
    /// 1 to 4.
    pub number: usize,
}

impl Card {
    /// The card as the paper writes it: `triangle red 1`.
    pub fn name(self) -> String {
        format!(
            "{} {} {}",
            SHAPES[self.shape], COLORS[self.color], self.number
        )
    }

    /// Whether `self` matches `other` on rule `rule` (0 shape, 1 colour, 2 number).
    pub fn matches(self, other: Card, rule: usize) -> bool {
        match rule {
            0 => self.shape == other.shape,
            1 => self.color == other.color,
            _ => self.number == other.number,
        }
    }
}

/// The four desk cards of the paper's WCST: `triangle red 1`, `cross green 2`,
/// `circle yellow 1`, `star blue 4` (number 3 matches none; number 1 matches two).
pub const DESK: [Card; 4] = [
    Card {
        shape: 0,
        color: 0,
        number: 1,
    },
    Card {
        shape: 1,
        color: 1,
        number: 2,
    },
    Card {
        shape: 2,
        color: 2,
        number: 1,
    },
    Card {
        shape: 3,
        color: 3,
        number: 4,
    },
];

/// WCST rule names in their cycling order.
pub const RULES: [&str; 3] = ["shape", "color", "number"];

/// One Iowa deck: gain every draw, a loss with probability `p_loss`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deck {
    /// The deck's label.
    pub name: &'static str,
    /// Gain on every draw ($).
    pub gain: i64,
    /// Loss when it happens ($).
    pub loss: i64,
    /// Probability of the loss.
    pub p_loss: f64,
}

impl Deck {
    /// Expected net value of one draw.
    pub fn expected(self) -> f64 {
        self.gain as f64 - self.p_loss * self.loss as f64
    }
}

/// The paper's four decks (expected values −30, −25, +25, +30).
pub const DECKS: [Deck; 4] = [
    Deck {
        name: "AAA",
        gain: 100,
        loss: 260,
        p_loss: 0.5,
    },
    Deck {
        name: "BBB",
        gain: 100,
        loss: 1250,
        p_loss: 0.1,
    },
    Deck {
        name: "CCC",
        gain: 50,
        loss: 50,
        p_loss: 0.5,
    },
    Deck {
        name: "DDD",
        gain: 50,
        loss: 200,
        p_loss: 0.1,
    },
];

/// The sentence the oddball scorer compares replies with (the paper's wording of surprise).
pub const SURPRISE: &str = "Wait, what? It is a totally unexpected shift and doesn't make any \
sense! It is not related to the context we are talking about! I don't get it. It is completely \
confusing.";

/// Our oddball paragraphs: a themed paragraph with one off-topic sentence (its index is the
/// second field). Written for this panel; the paper's 50 prompts are not vendored.
pub const ODDBALL_PARAGRAPHS: [(&str, usize); 12] = [
    (
        "Bees live in colonies led by a single queen. Worker bees collect nectar from flowers. \
      The hive stores honey in wax combs. The stock market closed lower on Tuesday. \
      Drones exist mainly to mate with the queen. Bees communicate by dancing.",
        3,
    ),
    (
        "A bicycle chain transfers power from the pedals to the rear wheel. Gears let the rider \
      change cadence. Brakes squeeze the rim or a disc to slow down. Tyres need the right \
      pressure for grip. Penguins huddle together to stay warm. A helmet protects the rider's head.",
        4,
    ),
    (
        "Bread dough needs flour, water, salt and yeast. Kneading develops the gluten. The dough \
      rises while the yeast ferments sugars. Jupiter has dozens of moons. Baking forms a brown \
      crust. Bread cools on a rack before slicing.",
        3,
    ),
    (
        "Volcanoes form where magma reaches the surface. Lava flows can travel for kilometres. \
      Ash clouds disrupt air travel. My grandmother knits woollen socks every winter. Some \
      volcanoes sleep for centuries. Volcanic soil is very fertile.",
        3,
    ),
    (
        "Chess is played on a board of sixty-four squares. Each player starts with sixteen pieces. \
      The knight moves in an L shape. Carrots are rich in vitamin A. Checkmate ends the game. \
      Openings are studied for years by strong players.",
        3,
    ),
    (
        "Coral reefs grow in warm shallow seas. Corals are colonies of tiny animals. Reefs shelter \
      a quarter of marine species. Rising sea temperatures cause bleaching. The printing press \
      spread books across Europe. Divers visit reefs to see colourful fish.",
        4,
    ),
    (
        "A violin has four strings tuned in fifths. The bow is strung with horsehair. Rosin helps \
      the hair grip the strings. Players practise scales daily. Concrete hardens as cement \
      reacts with water. A good violin can last for centuries.",
        4,
    ),
    (
        "Tomatoes need plenty of sunlight. Gardeners stake the plants as they grow. Regular \
      watering prevents split fruit. The Roman Empire built roads across Europe. Ripe tomatoes \
      turn red. Seeds can be saved for next year.",
        3,
    ),
    (
        "Glaciers are rivers of slowly moving ice. They carve valleys into U shapes. Meltwater \
      feeds many rivers in summer. My phone battery dies too quickly. Glaciers leave moraines \
      of rock behind. Many glaciers are shrinking today.",
        3,
    ),
    (
        "The heart pumps blood through the body. Arteries carry blood away from the heart. Veins \
      return it to the heart. The Eiffel Tower was finished in 1889. Red blood cells carry \
      oxygen. Exercise strengthens the heart muscle.",
        3,
    ),
    (
        "Owls hunt mostly at night. Their large eyes gather faint light. Soft feathers let them fly \
      silently. Owls swallow small prey whole. A spreadsheet organises numbers in cells. Many \
      owls nest in hollow trees.",
        4,
    ),
    (
        "A compiler translates source code into machine code. The parser builds a syntax tree. \
      Type checking catches many errors early. Optimisation makes the program faster. \
      Sunflowers turn to face the sun. The linker joins object files together.",
        4,
    ),
];

/// The n-back letter sequence: uniform letters, with the n-back letter repeated with
/// probability 1/3 (regenerated from the rule, not the authors' file).
pub fn nback_sequence(seed: u64, length: usize, n: usize) -> Vec<char> {
    let mut rng = seeded(derive_seed(seed, 1));
    let mut seq: Vec<char> = Vec::with_capacity(length);
    for i in 0..length {
        let c = if i >= n && rng.random_bool(1.0 / 3.0) {
            seq[i - n]
        } else {
            LETTERS[rng.random_range(0..LETTERS.len())]
        };
        seq.push(c);
    }
    seq
}

/// The WCST test cards: uniform shape, colour and number.
pub fn wcst_cards(seed: u64, count: usize) -> Vec<Card> {
    let mut rng = seeded(derive_seed(seed, 2));
    (0..count)
        .map(|_| Card {
            shape: rng.random_range(0..4),
            color: rng.random_range(0..4),
            number: rng.random_range(1..=4),
        })
        .collect()
}

/// Weather device states: `true` when device 1 is active (`[1, 0]`), else `[0, 1]`.
pub fn weather_devices(seed: u64, count: usize) -> Vec<bool> {
    let mut rng = seeded(derive_seed(seed, 3));
    (0..count).map(|_| rng.random_bool(0.5)).collect()
}

/// Splits text into sentences after `.`, `!` or `?` followed by white space (the paper's rule).
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        if matches!(c, '.' | '!' | '?') && chars.peek().is_some_and(|n| n.is_whitespace()) {
            let s = cur.split_whitespace().collect::<Vec<_>>().join(" ");
            if !s.is_empty() {
                out.push(s);
            }
            cur.clear();
        }
    }
    let s = cur.split_whitespace().collect::<Vec<_>>().join(" ");
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// The stimuli shared by every session of one settings value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stimuli {
    /// n-back letters.
    pub letters: Vec<char>,
    /// WCST test cards.
    pub cards: Vec<Card>,
    /// Weather devices (`true`: `[1, 0]`).
    pub devices: Vec<bool>,
}

impl Stimuli {
    /// Builds the stimuli for `settings`.
    pub fn new(settings: &crate::Settings) -> Self {
        Self {
            letters: nback_sequence(settings.data_seed, settings.nback.length, settings.nback.n),
            cards: wcst_cards(settings.data_seed, settings.wcst.trials),
            devices: weather_devices(settings.data_seed, settings.weather.trials),
        }
    }
}
