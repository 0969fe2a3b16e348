"""Reading a cassette: bytes -> numbered lines -> parsed records -> chain state -> verdict."""
