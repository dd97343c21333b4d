fn main() {
    eprintln!("bcast command line: see README");
}
