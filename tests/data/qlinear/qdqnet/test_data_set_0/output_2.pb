
Blogits_qJ
~x›Šgogqƒ