use std::collections::HashMap;
use std::io::{self, BufRead};

/// Counts the words read from standard input.
#[derive(Debug, Default)]
pub struct Counter<'a> {
    words: HashMap<&'a str, usize>,
    total: u64,
}

impl<'a> Counter<'a> {
    pub fn add(&mut self, line: &'a str) -> usize {
        for word in line.split_whitespace() {
            *self.words.entry(word).or_insert(0) += 1;
            self.total += 1;
        }
        self.words.len()
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let lines: Vec<String> = stdin.lock().lines().collect::<Result<_, _>>()?;
    let mut counter = Counter::default();
    for line in &lines {
        counter.add(line);
    }
    println!("{} words, {:.1} per line", counter.total, counter.total as f64 / 2.0);
    Ok(())
}
