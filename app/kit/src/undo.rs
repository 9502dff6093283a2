//! Undo and redo of parameter edits, one history per panel.
//!
//! The panel shows its parameters every frame and calls [`UndoHistory::observe`] with the
//! current values and whether the user is still interacting (a pointer button held). While the
//! user drags a slider nothing is recorded; when the drag ends the whole drag becomes one step.

/// The most steps kept.
pub const MAX_STEPS: usize = 100;

/// A history of parameter snapshots.
#[derive(Clone, Debug)]
pub struct UndoHistory<T: Clone + PartialEq> {
    committed: T,
    undo: Vec<T>,
    redo: Vec<T>,
}

impl<T: Clone + PartialEq> UndoHistory<T> {
    /// A history whose current state is `initial`, with nothing to undo.
    pub fn new(initial: T) -> Self {
        Self {
            committed: initial,
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// Records `current` as a new step if it differs from the last recorded state and the user
    /// is not in the middle of an interaction. Returns whether a step was recorded.
    pub fn observe(&mut self, current: &T, interacting: bool) -> bool {
        if interacting || *current == self.committed {
            return false;
        }
        let previous = std::mem::replace(&mut self.committed, current.clone());
        self.undo.push(previous);
        if self.undo.len() > MAX_STEPS {
            self.undo.remove(0);
        }
        self.redo.clear();
        true
    }

    /// Forgets the history and takes `state` as the new starting point (after loading a file).
    pub fn reset(&mut self, state: T) {
        self.committed = state;
        self.undo.clear();
        self.redo.clear();
    }

    /// Takes `state` as the current state without a step: a change the panel made itself
    /// (e.g. a choice computed from the user's input), which undo neither reverts nor repeats.
    pub fn absorb(&mut self, state: T) {
        self.committed = state;
    }

    /// The state before the last step, if any (the caller applies it).
    pub fn undo(&mut self) -> Option<T> {
        let previous = self.undo.pop()?;
        let current = std::mem::replace(&mut self.committed, previous.clone());
        self.redo.push(current);
        Some(previous)
    }

    /// The state undone last, if any (the caller applies it).
    pub fn redo(&mut self) -> Option<T> {
        let next = self.redo.pop()?;
        let current = std::mem::replace(&mut self.committed, next.clone());
        self.undo.push(current);
        Some(next)
    }

    /// Undoes into `target` (the edited parameters); false when there is nothing to undo.
    pub fn undo_into(&mut self, target: &mut T) -> bool {
        self.undo().map(|previous| *target = previous).is_some()
    }

    /// Redoes into `target`; false when there is nothing to redo.
    pub fn redo_into(&mut self, target: &mut T) -> bool {
        self.redo().map(|next| *target = next).is_some()
    }

    /// The state an undo would bring back, if any.
    pub fn peek_undo(&self) -> Option<&T> {
        self.undo.last()
    }

    /// The state a redo would bring back, if any.
    pub fn peek_redo(&self) -> Option<&T> {
        self.redo.last()
    }

    /// The state recorded last (what undo steps away from).
    pub fn committed(&self) -> &T {
        &self.committed
    }

    /// Whether there is something to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is something to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_is_one_step() {
        let mut history = UndoHistory::new(0.0);
        for value in [0.1, 0.2, 0.3] {
            assert!(!history.observe(&value, true));
        }
        assert!(history.observe(&0.3, false));
        assert!(!history.observe(&0.3, false));
        assert_eq!(history.undo(), Some(0.0));
        assert!(!history.can_undo());
        assert_eq!(history.redo(), Some(0.3));
        assert!(!history.can_redo());
    }

    #[test]
    fn a_new_edit_drops_the_redo_tail() {
        let mut history = UndoHistory::new(1);
        history.observe(&2, false);
        history.observe(&3, false);
        assert_eq!(history.undo(), Some(2));
        history.observe(&5, false);
        assert!(!history.can_redo());
        assert_eq!(history.undo(), Some(2));
        assert_eq!(history.undo(), Some(1));
        assert_eq!(history.undo(), None);
    }

    #[test]
    fn undo_into_and_redo_into_write_the_target() {
        let mut history = UndoHistory::new(1);
        let mut params = 2;
        history.observe(&params, false);
        assert!(history.undo_into(&mut params));
        assert_eq!(params, 1);
        assert!(!history.undo_into(&mut params));
        assert!(history.redo_into(&mut params));
        assert_eq!(params, 2);
        assert!(!history.redo_into(&mut params));
    }

    #[test]
    fn an_absorbed_change_is_no_step_and_undo_steps_over_it() {
        let mut history = UndoHistory::new(1);
        history.observe(&2, false);
        history.absorb(3);
        assert!(!history.observe(&3, false), "the absorbed state is current");
        assert_eq!(history.undo(), Some(1));
        assert_eq!(history.redo(), Some(3));
        assert!(!history.can_redo());
    }

    #[test]
    fn history_is_capped() {
        let mut history = UndoHistory::new(0_usize);
        for value in 1..=(MAX_STEPS + 20) {
            history.observe(&value, false);
        }
        let mut steps = 0;
        while history.undo().is_some() {
            steps += 1;
        }
        assert_eq!(steps, MAX_STEPS);
    }
}
