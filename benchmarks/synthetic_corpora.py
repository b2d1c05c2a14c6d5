"""Two more corpora for the synthetic-question measurement, from text installed here that the
project did not write (the manual pages are ``benchmarks/manpage_corpus.py``):

- ``pydoc`` (development): CPython docstrings as ``pydoc.getdoc`` returns them, of the public
  functions and classes of ``PYDOC_MODULES`` (the modules looked at while writing the rules);
  a docstring of at least 25 words is one passage, cut at blank lines to about 150 words, titled
  ``module: Name``;
- ``info`` (held out): the GNU Info manuals of ``/usr/share/info`` (texinfo prose: a different
  kind of text, never read while writing the rules); each node is cut at blank lines into
  passages of about 150 words, menus and copyright nodes left out, titled ``manual: Node``;
- ``readme`` (held out, second sample: drawn after the rules were changed on the first): the
  ``README*`` files of ``/usr/share/doc`` (Debian package notes and upstream READMEs: plain
  prose of yet another kind), cut at blank lines into passages of about 150 words, titled
  ``package: README``; licence and copyright paragraphs are left out;
- ``html`` (held out, third sample: drawn after the rules changed on the second): the HTML
  manuals of ``/usr/share/doc`` (valgrind, ninja, fontconfig, the Debian Python policy...: long
  hand-written manuals), the text of their paragraphs (``<p>``), runs of about 150 words, titled
  ``package: page title``; generated API references (libxslt), release notes (NEWS) and the
  manuals that are also Info manuals (nettle, libffi) are left out.

Each builder writes ``chunks.jsonl`` (``id``, ``doc_id``, ``title``, ``text``) under
``benchmarks/_data/<name>`` (not committed: the texts have their own licences).

- ``pod`` (held out, issue 32's final sample, graded blind by another grader): the POD
  documentation of Perl's core modules (the ``*.pm`` files of ``/usr/share/perl/5.36.0``),
  a kind of text none of the earlier rounds drew: module reference written in POD (``=head``
  sections, ``=item`` lists, verbatim code); each section is cut at blank lines into passages
  of about 150 words, titled ``Module::Name: heading``; formatting codes (``C<>``, ``L<>``...)
  are read as plain text; author, licence, history and see-also sections are left out.

- ``cmake`` (held out, issue 32's third pass, graded blind by another grader): CMake's
  reference help in reStructuredText (the ``*.rst`` of ``/usr/share/cmake-*/Help`` for
  commands, variables, properties and environment variables; not the manuals, which are also
  manual pages, nor policies and release notes, which are change logs): Sphinx source, a kind
  none of the earlier rounds drew; each section (a heading with its underline) is cut at blank
  lines into passages of about 150 words, titled ``name: heading``; roles (``:command:`x```)
  and inline literals are read as plain text, directive lines (``.. versionadded::``) are left
  out and their indented content kept.

- ``vim`` (held out, issue 32's fourth pass, graded blind by another grader): Vim's help files
  (the ``*.txt`` of ``/usr/share/vim/vim*/doc``), plain-text reference and user manual in
  Vim's own help format (``*tag*`` anchors, ``|link|`` references, ``>`` ... ``<`` example
  blocks, ``'option'`` names), a kind none of the earlier rounds drew; each section (between
  the ``====`` rules) is cut at blank lines into passages of about 150 words, titled ``file:
  heading``; anchors are left out, links read as their text, example markers dropped; the
  version history, to-do list, licence and sponsoring files are left out.

- ``javadoc`` (held out, issue 32's fifth pass, graded blind by another grader): the Javadoc
  comments of the Java SE API (``java.base``'s ``java.util``, ``java.util.concurrent``,
  ``java.lang``, ``java.io``, ``java.nio.file``, ``java.time``, ``java.net``, ``java.text``,
  ``java.math``) in the ``src.zip`` of a JDK installed under ``/usr/lib/jvm``: API reference
  written as HTML inside source comments with block tags, a kind none of the earlier rounds
  drew; one comment per declaration that is not private, read as Javadoc renders it (inline
  tags as their text, HTML as plain text, ``@param``/``@return``/``@throws`` as "Parameters:",
  "Returns:", "Throws:" lists; ``@see``, ``@since``, ``@author`` and the like left out), cut
  at blank lines into passages of about 150 words, titled ``Class: member``.

- ``rustc`` (held out, issue 32's sixth pass, graded blind by another grader): the Rust
  compiler's error index, the explanations ``rustc --explain E0382`` prints for each error code
  (the ``rustc`` of a toolchain under ``~/.rustup`` or on the path): diagnostic explanations in
  Markdown with erroneous and fixed code examples, a kind none of the earlier rounds drew; cut
  at blank lines into passages of about 150 words, titled ``rustc: E0382``; codes without an
  explanation are left out.

- ``pyref`` (held out, issue 32's seventh pass, graded blind by another grader): the Python
  Language Reference as CPython ships it for ``help()`` (``pydoc_data.topics``: the sections of
  the reference manual on statements, expressions, the data model, lexical analysis), a
  specification manual in prose with grammar productions, a kind none of the earlier rounds
  drew (round 3's CPython docstrings document modules' functions); each section (a heading with
  its underline) is cut at blank lines into passages of about 150 words, titled ``Python
  reference: heading``.

- ``awscli`` (held out, issue 32's eighth pass, graded blind by another grader): the
  documentation the AWS command line interface ships in its Python package (``awscli``'s
  ``examples/<service>/<command>.rst`` and ``topics/*.rst``, of the newest ``awscli`` found in
  a ``site-packages`` of this machine): task-oriented usage examples ("To create a bucket",
  a sentence saying what the command does, the command line and its output) and topic guides
  in reStructuredText, a kind none of the earlier rounds drew; each example (a bold
  ``**To ...**`` line) or topic section is cut at blank lines into passages of about 150 words,
  titled ``aws <service> <command>: <example>`` or ``<topic title>: <section>``; roles and
  inline literals are read as their text, a literal-block marker (``::``) as a colon or
  nothing, directive lines left out.

- ``npm`` (held out, issue 32's ninth pass, graded blind by another grader): the documentation
  npm ships with itself (``/usr/lib/node_modules/npm/docs/content``: its commands, its
  configuration and its guides), a package manager's documentation site written in Markdown with
  YAML front matter, a kind none of the earlier rounds drew; each section (a Markdown heading)
  is cut at blank lines into passages of about 150 words, titled ``<page title>: <heading>``;
  links are read as their text, inline code as its text, fenced code kept.

- ``rustbook`` (held out, issue 32's tenth pass, graded blind by another grader): "The Rust
  Programming Language" as the stable Rust toolchain under ``~/.rustup`` ships it
  (``share/doc/rust/html/book/ch*.html``), a tutorial book: chapters of explanatory prose with
  code listings, a kind none of the earlier rounds drew (the earlier rounds drew reference text);
  each section (an ``h1``-``h3`` heading) is read as its paragraphs and list items as text and
  its code listings as indented blocks, cut at blank lines into passages of about 150 words,
  titled ``The Rust Programming Language: <heading>``.

- ``pandas`` (held out, issue 32's eleventh pass, graded blind by another grader): the
  docstrings of pandas's public API (its top-level functions and the public methods of
  ``DataFrame``, ``Series`` and ``Index``, of the pandas installed with the project), written in
  the numpydoc convention (underlined "Parameters", "Returns", "Notes", "Examples" sections,
  typed parameter lists), a kind none of the earlier rounds drew (round 3's CPython docstrings
  are free prose); each section is cut at blank lines into passages of about 150 words,
  titled ``pandas: <name>`` or ``pandas: <name>: <section>``; "See Also" and "References"
  sections are left out.

- ``edition`` (held out, issue 32's twelfth pass, graded blind by another grader): "The Rust
  Edition Guide" as the stable Rust toolchain under ``~/.rustup`` ships it
  (``share/doc/rust/html/edition-guide``), migration notes: what each edition changed, why, and
  how to move code across, a kind none of the earlier rounds drew; read as ``rustbook`` is,
  titled ``The Rust Edition Guide: <page>: <heading>``.

- ``cargo`` (held out, issue 32's thirteenth pass, drawn because the edition guide gave 9
  questions from 230 passages; graded blind by another grader): "The Cargo Book" as the stable
  Rust toolchain ships it (``share/doc/rust/html/cargo``, its change log left out): the guide,
  the reference (manifest and configuration keys, environment variables, build scripts) and a
  page per command whose options are definition lists; read as ``rustbook`` is, a definition
  list's term on its own line with its description indented under it, titled
  ``The Cargo Book: <page>: <heading>``. Closest earlier kind: npm's documentation (another
  package manager's), in another format and with manual-page-like command pages.

- ``rustdoc`` (held out, issue 32's fourteenth pass, graded blind by another grader): the Rust
  standard library's API documentation as the stable toolchain ships it (``share/doc/rust/html/
  std``, rustdoc HTML): each struct, enum, trait, function, macro and primitive page's own
  description and its methods' (methods reached through ``Deref`` and trait implementations,
  documented on their own pages, left out), cut at their headings ("Examples", "Panics",
  "Safety"...) into passages of about 150 words, titled ``std::path::Item: method: heading``.
  Closest earlier kinds: Javadoc and pandas's docstrings (API references), in another format.
  Rounds 18 and 21 were drawn before a method with no docs of its own stopped being read as
  its neighbour's; their sheets hold the passages as graded.

- ``gsutil`` and ``kubectl`` (development, read for the rules' reach: a question is found in 49
  of gsutil's 277 passages and 5 of kubectl's 245): gsutil's built-in help (the
  ``<B>HEADING</B>`` help texts of its command and topic modules) and ``kubectl <command>
  --help`` for each command and subcommand (description, examples, options).

- ``rustref`` (held out, issue 32's fifteenth pass, graded blind by another grader): "The Rust
  Reference" as the stable toolchain ships it (``share/doc/rust/html/reference``), the
  language's reference: grammar, items, expressions, types and their rules, read as ``cargo``
  is, titled ``The Rust Reference: <page>: <heading>``. Closest earlier kind: the Python
  Language Reference (round 10). The rules find a question in 98 of its 1,030 passages.

- ``rustcbook`` (held out, issue 32's sixteenth pass, graded blind by another grader): "The
  rustc book" as the stable toolchain ships it (``share/doc/rust/html/rustc``), the compiler's
  manual: command-line arguments, codegen options, lints and their groups, platform support
  and target policies, read as ``cargo`` is, titled ``The rustc book: <page>: <heading>``.
  Closest earlier kinds: the Cargo book and manual pages. The rules find a question in 71 of
  its 1,343 passages.

- ``nodejs`` (held out, issue 32's seventeenth pass, graded blind by another grader): Node.js's
  API documentation as Debian's ``nodejs`` package ships it (``/usr/share/doc/nodejs/api/
  *.md``): the runtime's module reference in Markdown (``### fs.readFile(path[, options],
  callback)`` headings, ``* `path` {string|Buffer}`` parameter lists, stability notes), read as
  ``npm`` is, with the pages' HTML comments (version history in YAML) and link definitions left
  out and ``[text][]`` references read as their text; titled ``Node.js <module>: <heading>``.
  Closest earlier kinds: npm's documentation (same package, its CLI) and Rust's std docs (a
  runtime's API reference, in another format).

- ``pgsql`` (held out, issue 32's eighteenth pass, graded blind by another grader):
  PostgreSQL's SQL command reference (``ABORT`` to ``VALUES``), the section-7 manual pages of
  ``/usr/share/postgresql/*/man/man7``: a database's statement reference (synopsis grammar,
  parameters, notes, examples, compatibility), a kind of content no round drew; rendered and
  cut into passages as ``manpage_corpus.py`` does (every passage, no cap a page), titled
  ``PostgreSQL <COMMAND>: <Section>``. Closest earlier kind: the manual pages (the same format;
  the development corpus's pages are programs' and skipped these, which are symbolic links).

- ``pylibs`` (held out, issue 32's nineteenth pass, graded blind by another grader): the
  docstrings of third-party Python libraries installed with the project (``PYLIB_MODULES``:
  Tornado, Jinja, Click, Requests, urllib3, Rich, fsspec, Hypothesis, packaging, toolz), read
  as ``inspect.getdoc`` returns them: each public class, function and method defined in those
  modules, in the libraries' own docstring styles (reStructuredText with ``:param x:`` fields,
  Google-style ``Args:`` sections, doctest examples), cut at blank lines into passages of
  about 150 words, titled ``module: Class.method``. Closest earlier kinds: CPython's
  docstrings (round 3) and pandas's (numpydoc).

- ``perldiag`` (held out, issue 32's twentieth pass, graded blind by another grader): Perl's
  diagnostic messages (``perldiag.pod`` under ``/usr/share/perl``): each message (``=item``)
  with its explanation, one passage a message (the message its first line, formatting codes as
  plain text), titled ``perldiag: <message>``; messages whose explanation is under 12 words are
  left out. Closest earlier kind: the Rust compiler's error index (round 8, drawn with the
  earlier generator).

- ``apache`` (held out, issue 32's twenty-first pass, graded blind by another grader): the
  Apache HTTP Server's module reference (Debian's ``apache2-doc``, installed for it: ``apt-get
  install apache2-doc``; the ``html`` corpus leaves this package out): each directive of
  ``manual/en/mod/*.html`` with its quick-reference table read as ``Label: value`` lines
  (Description, Syntax, Default, Context...), then its paragraphs, examples and lists, cut
  into passages of about 150 words, titled ``Apache mod_alias: Alias Directive``: a server's
  configuration-directive reference, a kind no round drew. Closest earlier kinds: CMake's
  help and the HTML manuals.

- ``sqlite`` (held out, issue 32's twenty-second pass, graded blind by another grader): SQLite's
  C-language interface reference (Debian's ``sqlite3-doc``, installed for it; the ``html``
  corpus leaves ``/usr/share/doc/sqlite3`` out): each page of ``c3ref/`` (one interface or a
  group of them: its C declarations, then its prose, constants and definition lists), read as
  ``book_sections`` does, cut into passages of about 150 words, titled ``SQLite C interface:
  Opening A New Database Connection``: a C library's API reference, a kind no round drew.
  Closest earlier kinds: the C library's manual pages and Javadoc.

- ``golang`` (held out, issue 32's twenty-third pass, graded blind by another grader): the doc
  comments of Go's standard library (Debian's ``golang-1.19-src``, installed for it: the
  ``*.go`` files of ``/usr/share/go-1.19/src``, tests, ``internal``, ``vendor``, ``testdata``
  and ``cmd`` left out): the ``//`` comment right above an exported top-level declaration or a
  ``package`` clause, read as ``go doc`` prints it (the slashes dropped, indented lines kept as
  code), one passage per declaration cut at about 150 words, titled ``Go strings: Index`` (a
  method ``Go bufio: Reader.Read``, a package ``Go bufio: package``); a name documented in
  several files (one per platform) is kept once. API reference written as source comments in a
  language no round drew, whose sentences open on the name they document.

- ``ruby`` (held out, issue 32's twenty-third pass, a second kind drawn with the same frozen
  generator and score): the reference documentation of Ruby's core classes and standard
  library (Debian's ``ruby3.1-doc``, the ``ri`` store of ``/usr/share/ri/3.1.0/system``, read
  with ``ruby3.1``'s RDoc, both installed for it): each class's and method's comment as ``ri``
  prints it (its call sequence first, code examples indented), inline marks (``<tt>``,
  ``<var>``, ``<em>``...) read as plain text, one passage per comment cut at about 150
  words, titled ``Ruby Array#push`` (a class method ``Ruby File::join``, a class ``Ruby
  Array``); an alias whose comment is another method's is kept once. API reference written
  in RDoc for a language no round drew.

- ``rhelp`` (held out, issue 32's twenty-fourth pass, graded blind by another grader): the help
  pages of R's base packages (``base``, ``stats``, ``utils``, ``graphics``, ``grDevices``,
  ``methods``, ``tools``; Debian's ``r-base-core``, installed for it), each rendered as
  ``?name`` prints it (``tools::Rd2txt``, sections not indented), cut at its sections
  (Description, Arguments, Details, Value, Note...; References, See Also, Examples, Author(s),
  Source and Usage left out) into passages of about 150 words, titled ``R stats acf:
  Arguments``: a statistical language's function reference in R's own documentation format, a
  kind no round drew.

- ``gnuplot`` (held out, issue 32's twenty-fifth pass, graded blind by another grader):
  gnuplot's interactive help (``help set xrange``; Debian's ``gnuplot-doc``, installed for it:
  ``gnuplot.gih``), each topic's text under its run of ``?`` keys, the text's one-space margin
  dropped and its backquoted names read as plain text, cut at blank lines into passages of about
  150 words, titled ``gnuplot: set xrange`` (the first key, without the ``commands`` branch of
  the help tree): a plotting program's command reference, a kind no round drew.

- ``prolog`` (held out, issue 32's twenty-sixth pass, graded blind by another grader): the
  SWI-Prolog reference manual's predicate definitions (Debian's ``swi-prolog-doc``, installed
  for it: ``/usr/share/swi-prolog/doc/Manual/*.html``): each run of ``pubdef`` definition
  terms (the predicate's head, ``findall(+Template, :Goal, -Bag)``) with the description up to
  the next run, read as text, cut into passages of about 150 words, titled ``SWI-Prolog
  findall/3``: a logic-programming language's predicate reference, a kind no round drew.

- ``erlang`` (held out, issue 32's twenty-seventh pass, graded blind by another grader): the
  Erlang/OTP module reference (Debian's ``erlang-doc``, installed for it: each module page of
  ``/usr/share/doc/erlang-doc/lib/*/doc/html``): each exported function's heads (``all(Pred,
  List) -> boolean()``) and its description (its type lines left out), read as text, cut into
  passages of about 150 words, titled ``Erlang lists:all/2``: a functional language's library
  reference, a kind no round drew.

- ``racket`` (held out, issue 32's twenty-eighth pass, graded blind by another grader): the
  Racket Reference (Debian's ``racket-doc``, installed for it: ``/usr/share/doc/racket/
  reference/*.html``): each boxed definition's head (``(member v lst [is-equal?]) -> ...``, its
  argument contracts left out) with the description up to the next box or heading (the page's
  navigation left out), one paragraph a block, cut into passages of about 150 words, titled
  ``Racket member``: a Lisp's reference, a kind no round drew.

- ``gtkdoc`` (held out, issue 32's twenty-ninth pass, graded blind by another grader): the
  gtk-doc API references of GTK 3, GDK 3, GLib, GIO and GObject (Debian's ``libgtk-3-doc``,
  installed for it: ``/usr/share/gtk-doc/html/<book>/*.html``): each page's description and
  each entry (a function, macro, type, property or signal: its declaration, description,
  parameter or member table as "name: description" lines, "Returns:"), cut into passages of
  about 150 words, titled ``GIO GFile: g_file_replace_readwrite_finish``: a C library's
  generated reference of another documentation system, a kind no round drew.

- ``ocaml`` (held out, issue 32's thirtieth pass, graded blind by another grader): the OCaml
  standard library's reference as its manual pages (Debian's ``ocaml-man``, installed for it:
  ``/usr/share/man/man3/Stdlib.*.3o.gz``, rendered as ``manpage_corpus.py`` renders pages): the
  "Documentation" section of each module cut at each declaration (``val``, ``type``,
  ``exception``, ``module``...), the declaration with its description, passages of about 150
  words and at least 25, titled ``OCaml Stdlib.List: length`` (``OCaml Stdlib.List: type t``):
  an ML library's reference, a kind no round drew.

- ``haskell`` (held out, issue 32's thirty-first pass, graded blind by another grader): the
  Haddock reference of GHC's libraries (Debian's ``ghc-doc``, installed for it:
  ``/usr/share/doc/ghc-doc/html/libraries/<package>-<version>/*.html`` of base, containers,
  bytestring, text, directory, filepath, process, time, mtl, stm, parsec, array and deepseq;
  the ``GHC.*`` internals left out): each declaration's signature on one line with its
  documentation (constructor, field and instance tables left out), passages of about 150
  words and at least 25, titled ``Haskell Data.Map.Lazy: fromAscListWithKey``: a lazy
  functional language's generated reference, a kind no round drew.

- ``tcl`` (held out, issue 32's thirty-second pass, graded blind by another grader): Tcl's
  command reference, the manual pages of Debian's ``tcl8.6-doc`` (installed for it) whose names
  are commands (``/usr/share/man/man3/[a-z]*.3tcl.gz``, not the ``Tcl_*`` C interface; a page
  under another name, a symbolic link, taken once): a scripting language's command reference
  (``lsort ?options? list``, option lists, examples); rendered and cut into passages as
  ``manpage_corpus.py`` does, titled ``Tcl <command>: <Section>``. Closest earlier kinds: the
  manual pages (the same format) and PostgreSQL's command reference.

- ``sdl`` (held out, issue 32's thirty-third pass, graded blind by another grader): SDL2's
  Doxygen API reference (Debian's ``libsdl2-doc``, installed for it: the header pages
  ``/usr/share/doc/libsdl2-doc/html/*/*/*_8h.html``): each documented member (a function, macro,
  type or enumeration) as its declaration on one line, then its documentation, parameter
  tables as "name: description" lines, "Returns:" and "See also:" sections, the "Definition at
  line" notes left out; passages of about 150 words and at least 25, titled ``SDL2 SDL_audio.h:
  SDL_OpenAudio()``: a game library's reference from another documentation system, a kind no
  round drew.

- ``cppreference`` (held out, issue 32's thirty-fourth pass, graded blind by another grader):
  the C++ reference of cppreference.com as Debian's ``cppreference-doc-en-html`` ships it
  (installed for it: ``/usr/share/cppreference/doc/html/en/cpp/**/*.html``): each page's
  sections (the text before the first heading, then "Parameters", "Return value",
  "Complexity", "Exceptions", "Notes"...; examples, "See also", possible implementations, defect
  reports and references left out, and the declaration tables), parameter tables as "name -
  description" lines, passages of about 150 words and at least 25, titled ``C++ std::sort:
  Return value``: a wiki-written language library reference, a kind no round drew.

- ``ada`` (held out, issue 32's thirty-fifth pass, graded blind by another grader): the Ada 2012
  Reference Manual as Debian's ``ada-reference-manual-2012`` ships its text
  (``/usr/share/doc/ada-reference-manual-2012/arm2012.txt``, sections 1 to 13 and the
  normative annexes A to H): each clause (``A.4.3 Fixed-Length String Handling``) cut at blank
  lines into passages of about 150 words and at least 25, its numbered paragraphs as they are,
  titled ``Ada RM A.4.3: Fixed-Length String Handling``: a language standard, a kind no round
  drew.

- ``qt`` (held out, issue 32's thirty-sixth pass, graded blind by another grader): Qt 5's
  reference as Debian's ``qtbase5-doc-html`` ships it (installed for it:
  ``/usr/share/qt5/doc/<module>/*.html``, QDoc's HTML): each page's description (its ``<h2>``
  sections) and each member's documentation (a ``<h3 class="fn">`` signature and its text),
  member lists and obsolete-member pages left out, tables a line a row, passages of about 150
  words and at least 25, titled ``Qt QString Class: void QString::chop(int n)``: a C++
  framework's class reference, a kind no round drew.

- ``llvm`` (held out, issue 32's thirty-seventh pass, graded blind by another grader): LLVM
  19's documentation as Debian's ``llvm-19-doc`` ships it (installed for it:
  ``/usr/share/doc/llvm-19-doc/html/**/*.html``, Sphinx's HTML): the main text of each page cut
  at its headings, a definition's term a line above its description, passages of about 150
  words and at least 25, titled ``LLVM llc - LLVM static compiler: OPTIONS``: a compiler
  project's guides, language reference and tool manuals, a kind no round drew.

- ``django`` (held out, issue 32's thirty-eighth pass, graded blind by another grader): Django
  3.2's documentation as Debian's ``python-django-doc`` ships it (installed for it:
  ``/usr/share/doc/python-django-doc/html``, Sphinx's HTML): the main text of each page of the
  topic guides, how-tos, reference, FAQ and internals (release notes, module sources and indexes
  left out) cut at its headings, passages of about 150 words and at least 25, titled ``Django
  QuerySet API reference: filter()``: a web framework's guides and reference, a kind no round
  drew.

- ``octave`` (held out, issue 32's thirty-ninth pass, graded blind by another grader): GNU
  Octave's manual as Debian's ``octave-doc`` ships it in HTML (installed for it:
  ``/usr/share/doc/octave/octave.html/*.html``, makeinfo's HTML; the index pages left out): each
  page cut at its headings and at each function's definition (its call forms a line each, then its
  description), passages of about 150 words and at least 25, titled ``Octave 17.4 Sums and
  Products: cumsum``: a numerical language's manual and function reference, a kind no round drew.

- ``gimp`` (held out, issue 32's fortieth pass, graded blind by another grader): the GIMP 2.10
  user manual as Debian's ``gimp-help-en`` ships it (installed for it:
  ``/usr/share/gimp/2.0/help/en/*.html``, DocBook's HTML): each page's text between its
  navigation bars cut at its headings, passages of about 150 words and at least 25, titled ``GIMP
  3.10. Airbrush: 3.10.3. Options``: an end-user application's help (tools, menus, dialogs), a
  kind no round drew.

- ``lilypond`` (held out, issue 32's forty-first pass, graded blind by another grader): LilyPond
  2.24's Notation Reference and Usage manual as Debian's ``lilypond-doc-html`` ships them
  (installed for it: ``/usr/share/doc/lilypond/html/Documentation/{notation,usage}/*.html``,
  makeinfo's HTML in LilyPond's theme; the English pages only, the
  indexes left out): each page's text between its
  navigation tables cut at its headings, passages of about 150 words and at least 25, titled
  ``LilyPond Notation Reference: 2.8 Contemporary music``: a music typesetting language's manual,
  a kind no round drew.

- ``sbcl`` (held out, issue 32's forty-second pass, graded blind by another grader): the SBCL
  (Steel Bank Common Lisp) user manual as Debian's ``sbcl-doc`` ships it (installed for it:
  ``/usr/share/doc/sbcl/sbcl.html``, makeinfo's HTML on one page; its navigation bars and indexes
  left out): cut at its headings and at each function's definition, passages of about 150 words
  and at least 25, titled ``SBCL 3.1 Starting and Stopping: exit``: a Lisp implementation's
  manual, a kind no round drew.

- ``postgis`` (held out, issue 32's forty-third pass, graded blind by another grader): the
  PostGIS 3.3 manual as Debian's ``postgis-doc`` ships it (installed for it:
  ``/usr/share/doc/postgis-doc/postgis.html``, DocBook's HTML on one page): its chapters cut at
  their headings, then each reference entry cut at its headings (examples and see-also lists left
  out), passages of about 150 words and at least 25, titled ``PostGIS ST_Area: Description``: a
  spatial database extension's manual and function reference, a kind no round drew.

- ``zsh`` (held out, issue 32's forty-fourth pass, graded blind by another grader): the zsh 5.9
  manual as Debian's ``zsh-doc`` ships it (installed for it: ``/usr/share/doc/zsh-common/html``,
  texi2html's HTML, a page a node; indexes and tables of contents left out): each page's text
  cut at its headings, a builtin's synopsis a line above its description, passages of about 150
  words and at least 25, titled ``zsh 17 Shell Builtin Commands``: a shell's manual, a kind no
  round drew.

- ``libreoffice`` (held out, issue 32's forty-seventh pass, graded blind by another grader):
  LibreOffice 7.4's help as Debian's ``libreoffice-help-en-us`` ships it (installed for it:
  ``/usr/share/libreoffice/help/en-US/text/<module>/**/*.html``): each page's display area cut at
  its headings, passages of about 150 words and at least 25, titled ``LibreOffice Writer Creating
  Numbered or Bulleted Lists as You Type``: an office suite's help, a kind no round drew.

- ``policy`` (built, not drawn: the generator asks of 17 of its 417 passages, too few to
  test the halves): the Debian Policy Manual 4.6 as Debian's ``debian-policy`` ships it
  (installed for it: ``/usr/share/doc/debian-policy/policy.html``, Sphinx's HTML, a page a
  chapter or appendix; the index, the search page and the upgrading checklist, a change log,
  left out): each page's main text cut at its headings, passages of about 150 words and at
  least 25, titled ``Debian Policy 3. Binary packages: 3.1. The package name``: a normative
  specification ("packages must ...").

- ``kicad`` (held out, issue 32's forty-fifth pass, graded blind by another grader): KiCad 6's
  manuals as Debian's ``kicad-doc-en`` ships them (installed for it:
  ``/usr/share/doc/kicad/help/en/*.html``, Asciidoctor's HTML, a page a manual): each manual's
  content cut at its headings, passages of about 150 words and at least 25, titled ``KiCad PCB
  Editor: 4.6. Working with zones``: an electronics design application's manual, a kind no round
  drew.

- ``handbook`` (held out, issue 32's forty-sixth pass, graded blind by another grader): The Debian
  Administrator's Handbook (Debian 11) in English as Debian's ``debian-handbook`` ships it
  (installed for it: ``/usr/share/doc/debian-handbook/html/en-US/*.html``, Publican's DocBook
  HTML, a page a section; the navigation, the index, the foreword, the preface and the conclusion
  left out): each page's text cut at its headings, passages of about 150 words and at least 25,
  titled ``Debian Handbook 6.2. aptitude, apt-get, and apt Commands: 6.2.1. Initialization``: a
  system administrator's book, a kind no round drew.

- ``sqlalchemy`` (held out, issue 32's forty-eighth pass, graded blind by another grader):
  SQLAlchemy 1.4's documentation as Debian's ``python-sqlalchemy-doc`` ships it (installed for
  it: ``/usr/share/doc/python-sqlalchemy-doc/html``, Sphinx's HTML, a page a topic; the index,
  search, glossary, change logs and copyright pages left out): each page's main text (without
  its navigation) cut at its headings, passages of about 150 words and at least 25, titled
  ``SQLAlchemy Session Basics: Opening and Closing a Session``: a database toolkit's guides and
  API reference, a kind no round drew.

- ``ffmpeg`` (held out, issue 32's forty-ninth pass, graded blind by another grader): FFmpeg
  5.1's manuals as Debian's ``ffmpeg-doc`` ships them (installed for it:
  ``/usr/share/doc/ffmpeg/manual/*.html``, texi2any's HTML, a page a manual: the tools, filters,
  codecs, formats, protocols, devices, utilities, the FAQ and the general guide; the ``-all``
  pages that repeat the others, the developer, testing and mailing-list guides and the library
  overviews left out): each manual's text after its table of contents cut at its headings,
  passages of about 150 words and at least 25, titled ``FFmpeg Filters Documentation: 8.1
  acompressor``: a multimedia tool's option and filter reference, a kind no round drew.

- ``bind`` (held out, issue 32's fiftieth pass, graded blind by another grader): the BIND 9.18
  Administrator Reference Manual as Debian's ``bind9-doc`` ships it (installed for it:
  ``/usr/share/doc/bind9-doc/arm/*.html``, Sphinx's HTML, a page a chapter; the manual pages,
  release notes, history, index and search pages left out): each page's main text cut at its
  headings, passages of about 150 words and at least 25, titled ``BIND 9 Configurations and Zone
  Files: 4.2. Load Balancing``: a DNS server's administrator manual, a kind no round drew.

- ``haproxy`` (held out, issue 32's fifty-first pass, graded blind by another grader): the
  HAProxy 2.6 configuration manual as Debian's ``haproxy-doc`` ships it (installed for it:
  ``/usr/share/doc/haproxy/html/configuration.html``, one page generated from the text manual):
  its text cut at its chapter and section headings, each keyword a line above its description,
  passages of about 150 words and at least 25, titled ``HAProxy 3.2. Performance tuning``: a load
  balancer's configuration reference, a kind no round drew.

- ``gnucash`` (held out, issue 32's fifty-second pass, graded blind by another grader): GnuCash
  4.13's Tutorial and Concepts Guide and its Help manual in English as Debian's ``gnucash-docs``
  ships them (installed for it: ``/usr/share/doc/gnucash-docs/gnucash-{guide,help}-en/*.html``,
  DocBook's chunked HTML, a page a section; the navigation, the licence and the index left out):
  each page's text cut at its headings, passages of about 150 words and at least 25, titled
  ``GnuCash Help 5.4. Creating a New Account``: a personal and small-business accounting
  application's guide, a kind no round drew.

- ``maxima`` (held out, issue 32's fifty-third pass, graded blind by another grader): the Maxima
  5.46 manual as Debian's ``maxima-doc`` ships it (installed for it:
  ``/usr/share/doc/maxima-doc/html/maxima_*.html``, makeinfo's HTML, a page a node; the one-page
  copy and the indexes left out): each page cut at its headings and at each function's or
  variable's definition, passages of about 150 words and at least 25, titled ``Maxima 26.2
  Functions and Variables for ctensor: symmetricp``: a computer algebra system's reference manual,
  a kind no round drew.

- ``exim`` (held out, issue 32's fifty-fourth pass, graded blind by another grader): the Exim 4.96
  specification as Debian's ``exim4-doc-html`` ships it (installed for it:
  ``/usr/share/doc/exim4-doc-html/spec_html/ch-*.html``, a page a chapter; the indexes left out):
  each chapter's text cut at its section headings, passages of about 150 words and at least 25,
  titled ``Exim Chapter 5 - The Exim command line: 3. Command line options``: a mail server's
  specification, a kind no round drew.

- ``scipy`` (held out, issue 32's fifty-fifth pass, graded blind by another grader): SciPy
  1.10's API reference as Debian's ``python-scipy-doc`` ships it (installed for it:
  ``/usr/share/doc/python-scipy-doc/html/reference/**/*.html``, Sphinx's HTML with numpydoc, a
  page a module or a function, class or constant): each page's main text cut at its headings,
  passages of about 150 words and at least 25, titled ``SciPy scipy.optimize.minimize``: a
  scientific library's API reference, a kind no round drew.

- ``postfix`` (held out, issue 32's fifty-sixth pass, graded blind by another grader): Postfix
  3.7's README guides as Debian's ``postfix-doc`` ships them (installed for it:
  ``/usr/share/doc/postfix/html/*_README.html``, hand-written HTML, a page a guide; not the manual
  pages beside them): each guide's text cut at its headings, passages of about 150 words and at
  least 25, titled ``Postfix Backscatter Howto: Blocking backscatter mail with forged sender
  information``: a mail server's administration guides, a kind no round drew (Exim's
  specification, round 60, is a reference, and no rule was written from it).

- ``pyguides`` (built, not drawn: Python's tutorial, HOWTOs and FAQ,
  ``/usr/share/doc/python3/html/{tutorial,howto,faq}/*.html``, are about the modules whose
  docstrings the rules were written from), titled ``Python <page>: <heading>``.

- ``jinja`` (held out, issue 32's fifty-seventh pass, graded blind by another grader): Jinja 3.1's
  documentation as Debian's ``python-jinja2-doc`` ships it (installed for it:
  ``/usr/share/doc/python-jinja2-doc/html/*.html``, Sphinx's HTML, a page a topic; the change log,
  licence, module index, index and search pages left out): each page's main text cut at its
  headings, passages of about 150 words and at least 25, titled ``Jinja Template Designer
  Documentation: Filters``: a template language's reference and API, a kind no round drew.

- ``werkzeug`` (held out, issue 32's fifty-eighth pass, graded blind by another grader): Werkzeug
  2.2's documentation as Debian's ``python-werkzeug-doc`` ships it (installed for it:
  ``/usr/share/doc/python-werkzeug-doc/html/*.html``, Sphinx's HTML, a page a topic; the change
  log, licence, module index, index and search pages left out): each page's main text cut at its
  headings, passages of about 150 words and at least 25, titled ``Werkzeug URL Routing: Rule
  Format``: a WSGI and HTTP toolkit's guide and API reference, a kind no round drew.

- ``libvirt`` (held out, issue 32's fifty-ninth pass, graded blind by three other graders):
  libvirt 9.0's documentation as Debian's ``libvirt-doc`` ships it (installed for it:
  ``/usr/share/doc/libvirt-doc/html/*.html`` and ``kbase/*.html``, the project's own HTML, a page
  a topic; the manual pages, the generated C API reference, the release notes, the download and
  not-found pages left out): each page's ``<main>`` element cut at its headings, passages of
  about 150 words and at least 25, titled ``libvirt Domain XML format: CPU model and topology``:
  a virtualization library's guides, driver notes and XML format reference, a kind no round
  drew.

- ``rsyslog`` (held out, issue 32's sixtieth pass, graded blind by three other graders):
  rsyslog 8.2302's documentation as Debian's ``rsyslog-doc`` ships it (installed for it:
  ``/usr/share/doc/rsyslog-doc/html/**/*.html``, Sphinx's HTML in folders by part; the index and
  search pages and Sphinx's own folders left out): each page's main text cut at its headings,
  passages of about 150 words and at least 25, titled ``rsyslog omfile: File Output Module``: a
  logging daemon's configuration language, module reference and tutorials, a kind no round drew.

- ``githowto`` (built, not drawn: the generator asks of 11 of its 444 passages): Git 2.39's
  how-tos, contributor guides and user manual (``/usr/share/doc/git-doc/howto/*.html`` and the
  ``MyFirst*``, ``SubmittingPatches``, ``ReviewingGuidelines``, ``ToolsForGit`` and
  ``user-manual`` pages), titled ``Git <page>: <heading>``.

- ``grass`` and ``devref`` (built, not drawn: GRASS GIS 8.2's module manual,
  ``/usr/share/doc/grass-doc/html/<module>.html``, reads as manual pages do, the kind the rules
  were written from; the Debian Developer's Reference,
  ``/usr/share/doc/developers-reference/docs/*.html``, has 24 passages the generator asks of, too
  few), titled ``GRASS <module>: <heading>`` and ``Debian Developer's Reference <chapter>:
  <heading>``.

- ``wireshark``, ``ant`` and ``weechat`` (built, not drawn: the generator asks of 53 of the
  Wireshark User's Guide's 594 passages, 30 of Apache Ant's task and type manual's 1,333 and 14
  of WeeChat 3.8's English guides' 1,169, too few to test the halves well):
  ``/usr/share/doc/wireshark/wsug_html_chunked/*.html`` (DocBook's chunked HTML, the navigation
  and the GPL appendix left out), titled ``Wireshark <section>: <heading>``;
  ``/usr/share/doc/ant/manual/{Tasks,Types}/*.html`` (hand-written HTML), titled ``Apache Ant
  <task>: <heading>``; ``/usr/share/doc/weechat-doc/html/weechat_*.en.html`` (Asciidoctor's
  HTML), titled ``WeeChat <guide>: <heading>``.

    python benchmarks/synthetic_corpora.py <corpus>  (pydoc, info, readme, html, pod, cmake, vim,
                                                  javadoc, rustc, pyref, awscli, npm,
                                                  rustbook, pandas, edition, cargo,
                                                  rustdoc, gsutil, kubectl, rustref,
                                                  rustcbook, nodejs, pgsql, pylibs,
                                                  perldiag, apache, sqlite, golang,
                                                  ruby, rhelp, gnuplot, prolog,
                                                  erlang, racket, gtkdoc, ocaml,
                                                  haskell, tcl, sdl, cppreference,
                                                  ada, qt, llvm, django, octave,
                                                  gimp, lilypond, sbcl, postgis,
                                                  zsh, libreoffice, policy, kicad,
                                                  handbook, sqlalchemy, ffmpeg,
                                                  bind, wireshark, ant, haproxy,
                                                  weechat, gnucash, maxima,
                                                  exim, grass, devref, scipy,
                                                  githowto, pyguides, postfix,
                                                  jinja, werkzeug, libvirt,
                                                  rsyslog)
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import importlib
import inspect
import json
import pydoc
import re
import shutil
import subprocess
import textwrap
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PYDOC_MODULES = ("queue", "collections", "tarfile", "os", "shutil", "ipaddress", "smtplib",
                 "multiprocessing.managers", "json", "posix")
INFO_DIR = Path("/usr/share/info")
WORDS = 150


def paragraphs_to_passages(text: str, words: int = WORDS) -> list[str]:
    """``text`` cut at blank lines into runs of about ``words`` words (a paragraph is never
    split)."""
    out, current = [], []
    for para in re.split(r"\n[ \t]*\n", text.strip("\n")):
        if not para.strip():
            continue
        current.append(para)
        if sum(len(p.split()) for p in current) >= words:
            out.append("\n\n".join(current))
            current = []
    if current:
        out.append("\n\n".join(current))
    return out


def html_text(fragment: str) -> str:
    """An HTML fragment's text: tags left out, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def html_line(fragment: str) -> str:
    """An HTML fragment's text on one line, its runs of white space single spaces."""
    return " ".join(html_text(fragment).split())


def section_rows(doc: str, section: int, title: str, body: str) -> list[dict]:
    """The passages of one section as rows, ``<doc>-<section>-<passage>`` their ids; passages
    under 25 words are left out."""
    return [{"id": f"{doc}-{section:02d}-{i:02d}", "doc_id": doc, "title": title, "text": text}
            for i, text in enumerate(paragraphs_to_passages(body), 1) if len(text.split()) >= 25]


def marked_sections(text: str, headings: re.Pattern) -> list[tuple[str, str]]:
    """(heading, text) of ``text`` cut at the matches of ``headings`` (its group 1 the heading,
    stripped), the text before the first match first under the heading ""."""
    marks = list(headings.finditer(text))
    return [("", text[:marks[0].start()] if marks else text)] + [
        (here.group(1).strip(), text[here.end():after.start() if after else None])
        for here, after in zip(marks, [*marks[1:], None], strict=False)]


def pydoc_rows() -> list[dict]:
    rows = []
    for name in PYDOC_MODULES:
        module = importlib.import_module(name)
        for attr in sorted(a for a in dir(module) if not a.startswith("_")):
            obj = getattr(module, attr)
            if not callable(obj):
                continue
            rows += docstring_rows(name, attr, pydoc.getdoc(obj) or "")
    return rows


def docstring_rows(module: str, name: str, text: str, title: str | None = None) -> list[dict]:
    """The passages of one docstring as rows, titled ``title`` (default ``module: name``; none
    when it is under 25 words)."""
    if len(text.split()) < 25:
        return []
    return [{"id": f"{module}.{name}-{i:02d}", "doc_id": f"{module}.{name}",
             "title": title or f"{module}: {name}", "text": body}
            for i, body in enumerate(paragraphs_to_passages(text), 1)]


def info_nodes(path: Path) -> list[tuple[str, str]]:
    """(node name, text) of one Info file."""
    raw = gzip.open(path, "rt", encoding="utf-8", errors="replace").read()
    out = []
    for part in raw.split("\x1f")[1:]:
        head, _, body = part.strip("\n").partition("\n")
        node = re.search(r"Node: ([^,\n]+)", head)
        if node is None or node.group(1) in ("Top",) or "Copying" in node.group(1):
            continue
        body = body.split("* Menu:")[0]
        body = re.sub(r"(?m)^[=*\-.]{3,}$", "", body)  # underlines of node titles
        out.append((node.group(1).strip(), body))
    return out


def info_rows() -> list[dict]:
    rows = []
    for path in sorted(INFO_DIR.glob("*.info*.gz")):
        manual = path.name.split(".info")[0]
        for node, body in info_nodes(path):
            if re.search(r"licen[cs]e|copying|index|concept", node, re.I):
                continue
            for i, text in enumerate(paragraphs_to_passages(body), 1):
                if len(text.split()) < 25:
                    continue
                slug = re.sub(r"\s+", "_", node)
                rows.append({"id": f"{manual}:{slug}-{i:02d}", "doc_id": f"{manual}:{slug}",
                             "title": f"{manual}: {node}", "text": text})
    return rows


def readme_rows() -> list[dict]:
    rows = []
    for path in sorted(Path("/usr/share/doc").glob("*/README*")):
        if not path.is_file() or path.is_symlink():
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8") as handle:
                raw = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
        package = path.parent.name
        name = path.name.removesuffix(".gz")
        for i, text in enumerate(paragraphs_to_passages(raw), 1):
            if len(text.split()) < 25 or re.search(r"licen[cs]e|copyright|warranty", text, re.I):
                continue
            rows.append({"id": f"{package}:{name}-{i:02d}", "doc_id": f"{package}:{name}",
                         "title": f"{package}: {name}", "text": text})
    return rows


HTML_SKIPPED = ("libxslt1-dev", "nettle-dev", "libffi-dev", "libffi8", "apache2-doc",
                "sqlite3")


def html_rows() -> list[dict]:
    rows = []
    for path in sorted(Path("/usr/share/doc").rglob("*.html")):
        package = path.relative_to("/usr/share/doc").parts[0]
        if package in HTML_SKIPPED or "NEWS" in path.name or not path.is_file():
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        title = re.search(r"(?is)<title>(.*?)</title>", raw)
        name = html.unescape(re.sub(r"\s+", " ", title.group(1))).strip() if title else path.stem
        paragraphs = [html_text(p).strip()
                      for p in re.findall(r"(?is)<p\b[^>]*>(.*?)</p>", raw)]
        text = "\n\n".join(p for p in paragraphs if len(p.split()) >= 8)
        for i, body in enumerate(paragraphs_to_passages(text), 1):
            if len(body.split()) < 25 or re.search(r"licen[cs]e|copyright|warranty", body, re.I):
                continue
            slug = re.sub(r"\W+", "_", str(path.relative_to("/usr/share/doc")))
            rows.append({"id": f"{slug}-{i:02d}", "doc_id": slug, "title": f"{package}: {name}",
                         "text": body})
    return rows


POD_ROOT = Path("/usr/share/perl/5.36.0")
POD_SKIPPED = re.compile(r"AUTHOR|COPYRIGHT|LICEN[CS]E|SEE ALSO|BUGS|HISTORY|ACKNOWLEDG|"
                         r"CHANGES|MAINTAIN|VERSION", re.I)
POD_CODE = re.compile(r"[A-Z]<(<+)\s(.*?)\s\1?>+|[A-Z]<([^<>]*)>")


def pod_plain(text: str) -> str:
    """POD formatting codes as plain text: ``C<x>``, ``C<< x >>``, ``B<>``, ``I<>``, ``F<>`` keep
    their text, ``L<text|target>`` its text (else the target), ``E<lt>``/``E<gt>`` the
    character, ``X<>``/``Z<>`` nothing."""
    def one(match: re.Match) -> str:
        code = match.group(0)[0]
        inner = match.group(2) if match.group(2) is not None else match.group(3)
        if code in "XZ":
            return ""
        if code == "E":
            return {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}.get(inner, inner)
        if code == "L":
            inner = inner.split("|", 1)[0] if "|" in inner else inner.strip('"/')
        return inner

    for _ in range(4):  # nested codes, innermost first
        text = POD_CODE.sub(one, text)
    return text


def pod_sections(raw: str) -> list[tuple[str, str]]:
    """(heading, text) of the POD of one Perl file: ``=item`` lines become lines of their own
    above their description, verbatim paragraphs keep their indentation, sections named in
    ``POD_SKIPPED`` and ``=begin``/``=for`` blocks are left out."""
    out: list[tuple[str, list[str]]] = []
    in_pod, skipping = False, False
    for para in re.split(r"\n[ \t]*\n", raw):
        head = para.lstrip("\n")
        if head.startswith("=cut"):
            in_pod = False
            continue
        if re.match(r"=[a-z]", head):
            in_pod = True
            command, _, rest = head.partition(" ")
            rest = pod_plain(" ".join(rest.split()))
            if command in ("=head1", "=head2", "=head3"):
                skipping = bool(POD_SKIPPED.search(rest))
                out.append((rest, []))
            elif command == "=item" and out and rest.strip("* ") and not skipping:
                out[-1][1].append(rest.strip("* ").strip())
            elif command == "=begin":
                skipping = True
            continue
        if not in_pod or skipping or not out:
            continue
        if para[:1] in " \t":
            out[-1][1].append(para.rstrip())
        else:
            out[-1][1].append(pod_plain(para.strip()))
    return [(h, "\n\n".join(body)) for h, body in out if body]


def pod_rows() -> list[dict]:
    rows = []
    for path in sorted(POD_ROOT.rglob("*.pm")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        module = "::".join(path.relative_to(POD_ROOT).with_suffix("").parts)
        for s, (heading, body) in enumerate(pod_sections(raw), 1):
            for i, text in enumerate(paragraphs_to_passages(body), 1):
                if len(text.split()) < 25 or re.search(r"licen[cs]e|copyright|warranty", text,
                                                       re.I):
                    continue
                rows.append({"id": f"{module}-{s:02d}-{i:02d}", "doc_id": module,
                             "title": f"{module}: {heading}", "text": text})
    return rows


CMAKE_PARTS = ("command", "variable", "envvar", "prop_cache", "prop_dir", "prop_gbl",
               "prop_inst", "prop_sf", "prop_test", "prop_tgt")
RST_ROLE = re.compile(r":[\w:-]+:`([^`<]*?)\s*(?:<[^`>]*>)?`|``([^`]+)``")
RST_UNDERLINE = re.compile(r"^([-=^~\"*+#])\1{2,}\s*$")


def rst_plain(line: str) -> str:
    """Roles and inline literals as their text: ``:command:`add_custom_target``` ->
    ``add_custom_target``, ``:prop_tgt:`FOO <BAR>``` -> ``FOO``, a trailing ``::`` -> ``:``."""
    line = RST_ROLE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), line)
    return re.sub(r"(\S)::$", r"\1:", line)


def rst_sections(raw: str) -> list[tuple[str, str]]:
    """(heading, text) of one reStructuredText file: a line over an underline is a heading,
    directive and comment lines (``.. x::``) are left out, their indented content kept."""
    lines = raw.splitlines()
    out: list[tuple[str, list[str]]] = []
    for i, line in enumerate(lines):
        if RST_UNDERLINE.match(line) or (line.strip().startswith("..") and not line.strip(".")):
            continue
        if i + 1 < len(lines) and RST_UNDERLINE.match(lines[i + 1]) and line.strip():
            out.append((rst_plain(line.strip()), []))
            continue
        if re.match(r"\s*\.\.\s", line) or not out:
            continue
        out[-1][1].append(rst_plain(line.rstrip()))
    return [(h, "\n".join(body).strip("\n")) for h, body in out if "".join(body).strip()]


def cmake_rows() -> list[dict]:
    rows = []
    for help_dir in sorted(Path("/usr/share").glob("cmake-*/Help")):
        for part in CMAKE_PARTS:
            for path in sorted((help_dir / part).glob("*.rst")):
                raw = path.read_text(encoding="utf-8", errors="replace")
                for s, (heading, body) in enumerate(rst_sections(raw), 1):
                    title = path.stem if heading == path.stem else f"{path.stem}: {heading}"
                    rows += section_rows(f"{part}/{path.stem}", s, title, body)
    return rows


VIM_SKIPPED = re.compile(r"^(?:version\d.*|todo|uganda|sponsor|tags|help)$")
VIM_RULE = re.compile(r"^={20,}\s*$")
VIM_TAG = re.compile(r"(?:(?<=\s)|^)\*[^*\s]+\*(?=\s|$)")
VIM_LINK = re.compile(r"\|([^|\s]+)\|")


def vim_plain(line: str) -> str:
    """A help line as text: anchors left out, links as their text, a trailing ``>`` (an
    example follows) and a leading ``<`` (it ended) dropped, a ``~`` heading mark dropped."""
    line = VIM_LINK.sub(r"\1", VIM_TAG.sub("", line)).rstrip()
    line = re.sub(r"\s>$|^>$", "", line)
    line = re.sub(r"^<(?=\s|$)", "", line)
    return re.sub(r"\s~$", "", line).rstrip()


def vim_sections(raw: str) -> list[tuple[str, str]]:
    """(heading, text) of one help file: the sections between ``====`` rules, the first line
    after a rule is the heading (its anchors left out); the file's own first section (its
    title line and contents list) is left out."""
    out = []
    for section in re.split(r"\n(?:={20,}\s*)\n", raw)[1:]:
        lines = section.splitlines()
        if not lines:
            continue
        heading = " ".join(vim_plain(lines[0]).split())
        heading = re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", heading)
        body = "\n".join(vim_plain(x) for x in lines[1:] if not x.startswith(" vim:"))
        if heading and body.strip():
            out.append((heading, body.strip("\n")))
    return out


def vim_rows() -> list[dict]:
    rows = []
    for doc_dir in sorted(Path("/usr/share/vim").glob("vim*/doc")):
        for path in sorted(doc_dir.glob("*.txt")):
            if VIM_SKIPPED.match(path.stem):
                continue
            raw = path.read_text(encoding="utf-8", errors="replace")
            for s, (heading, body) in enumerate(vim_sections(raw), 1):
                for i, text in enumerate(paragraphs_to_passages(body), 1):
                    if len(text.split()) < 25:
                        continue
                    rows.append({"id": f"{path.stem}-{s:02d}-{i:02d}", "doc_id": path.stem,
                                 "title": f"{path.stem}: {heading}", "text": text})
    return rows


JAVA_PACKAGES = ("java/util", "java/util/concurrent", "java/lang", "java/io", "java/nio/file",
                 "java/time", "java/net", "java/text", "java/math")
JAVADOC = re.compile(r"/\*\*(.*?)\*/\s*((?:@\w+(?:\([^)]*\))?\s*)*[^;{=]*)", re.S)
JAVA_INLINE = re.compile(r"\{@(?:code|literal|value|linkplain|link|systemProperty|index)\s+"
                         r"([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
JAVA_BLOCK_SHOWN = {"param": "Parameters:", "return": "Returns:", "throws": "Throws:",
                    "exception": "Throws:", "apiNote": "API Note:", "implSpec":
                    "Implementation Requirements:", "implNote": "Implementation Note:"}


def _javadoc_inline(match: re.Match) -> str:
    body = match.group(1).strip()
    if match.group(0).startswith(("{@link", "{@linkplain")):
        target, *label = body.split(None, 1)
        return " ".join(label).strip() or target.replace("#", ".").lstrip(".")
    return body


def javadoc_plain(comment: str) -> str:
    """A doc comment as Javadoc renders it, as plain text (see the module docstring)."""
    lines = [re.sub(r"^\s*\*? ?", "", line) for line in comment.splitlines()]
    text = re.sub(r"\n@param\s+<\w+>[^\n]*(?:\n(?!@)[^\n]*)*", "", "\n".join(lines))
    text = JAVA_INLINE.sub(_javadoc_inline, text)
    text = re.sub(r"(?i)<p\b[^>]*>|</p>", "\n\n", text)
    text = re.sub(r"(?i)<li\b[^>]*>", "\n- ", text)
    text = html_text(text)
    body, *tags = re.split(r"\n(?=@\w)", text)
    blocks: dict[str, list[str]] = {}
    for tag in tags:
        name, _, rest = tag[1:].partition(" ")
        label = JAVA_BLOCK_SHOWN.get(name.strip())
        if label is None:
            continue
        rest = " ".join(rest.split())
        if name in ("param", "throws", "exception"):
            head, _, tail = rest.partition(" ")
            rest = f"{head} - {tail}"
        blocks.setdefault(label, []).append(rest)
    shown = [body.strip()] + [label + "".join(f"\n  {item}" for item in items)
                              for label, items in blocks.items()]
    return "\n\n".join(part for part in shown if part)


def _java_member(declaration: str) -> str | None:
    """The member a declaration names (``add(E e)``, ``class ArrayDeque``, ``MAX_VALUE``), None
    for a private one."""
    words = " ".join(re.sub(r"@\w+(?:\([^)]*\))?", "", declaration).split())
    if not words or words.startswith("private") or " private " in f" {words} ":
        return None
    kind = re.search(r"\b(class|interface|enum|record)\s+(\w+)", words)
    if kind and "(" not in words.split(kind.group(0))[0]:
        return kind.group(2)
    call = re.search(r"(\w+)\s*\(([^)]*)\)?", words)
    if call:
        return f"{call.group(1)}({' '.join(call.group(2).split())})"
    return words.split()[-1] if words.split() else None


def javadoc_rows() -> list[dict]:
    rows = []
    for source in sorted(Path("/usr/lib/jvm").glob("*/lib/src.zip")):
        if not source.exists():  # a link to a source package not installed
            continue
        with zipfile.ZipFile(source) as archive:
            names = sorted(n for n in archive.namelist() if n.endswith(".java")
                           and n.rsplit("/", 1)[0] in {f"java.base/{p}" for p in JAVA_PACKAGES})
            for name in names:
                cls = Path(name).stem
                raw = archive.read(name).decode("utf-8", errors="replace")
                for m, match in enumerate(JAVADOC.finditer(raw), 1):
                    member = _java_member(match.group(2))
                    if member is None or "{@inheritDoc}" in match.group(1):
                        continue
                    title = cls if member == cls else f"{cls}: {member}"
                    doc = name.split("/", 1)[1].removesuffix(".java")
                    for i, text in enumerate(paragraphs_to_passages(
                            javadoc_plain(match.group(1))), 1):
                        if len(text.split()) >= 25:
                            rows.append({"id": f"{doc}-{m:03d}-{i:02d}", "doc_id": doc,
                                         "title": title, "text": text})
        break  # one JDK's sources
    return rows


def _rustc() -> str | None:
    found = sorted(Path.home().glob(".rustup/toolchains/stable-*/bin/rustc"))
    return str(found[0]) if found else shutil.which("rustc")


def rustc_rows() -> list[dict]:
    rustc = _rustc()
    if rustc is None:
        raise SystemExit("rustc: no Rust toolchain found")
    rows = []
    for number in range(1, 1000):
        code = f"E{number:04d}"
        run = subprocess.run([rustc, "--explain", code], capture_output=True, text=True)
        if run.returncode != 0 or not run.stdout.strip():
            continue
        for i, text in enumerate(paragraphs_to_passages(run.stdout), 1):
            if len(text.split()) >= 25:
                rows.append({"id": f"{code}-{i:02d}", "doc_id": code, "title": f"rustc: {code}",
                             "text": text})
    return rows


PY_UNDERLINE = re.compile(r"^([*=\-~^])\1{2,}\s*$")


def pyref_rows() -> list[dict]:
    from pydoc_data.topics import topics

    rows = []
    for topic, raw in sorted(topics.items()):
        lines = raw.splitlines()
        sections: list[tuple[str, list[str]]] = []
        for i, line in enumerate(lines):
            if PY_UNDERLINE.match(line):
                continue
            if i + 1 < len(lines) and PY_UNDERLINE.match(lines[i + 1]) and line.strip():
                sections.append((line.strip(), []))
            elif sections:
                sections[-1][1].append(line)
        for s, (heading, body) in enumerate(sections, 1):
            rows += section_rows(topic, s, f"Python reference: {heading}",
                                 "\n".join(body).strip("\n"))
    return rows


AWS_EXAMPLE = re.compile(r"^\*\*(.+?)\*\*\s*$")
AWS_FIELD = re.compile(r"^:(\w[\w ]*):\s*(.*)$")


def _awscli() -> Path | None:
    """The ``awscli`` package directory of the newest version installed in a site-packages."""
    found = [*Path.home().glob(".pyenv/versions/*/lib/python3*/site-packages/awscli"),
             *Path("/usr/lib/python3/dist-packages").glob("awscli"),
             *Path("/usr/local/lib").glob("python3*/*-packages/awscli")]
    found = [p for p in found if (p / "examples").is_dir()]
    return max(found, key=lambda p: len(list((p / "examples").glob("*")))) if found else None


def aws_plain(line: str) -> str:
    """A reST line as text: roles and literals as their text, a literal-block marker dropped
    (``... bucket. ::`` -> ``... bucket.``) or kept as a colon (``follows::`` -> ``follows:``)."""
    return rst_plain(re.sub(r"\s+::$", "", line.rstrip()))


def aws_examples(raw: str) -> list[tuple[str | None, str]]:
    """(example heading, text) of one examples file: each bold ``**To ...**`` line starts one."""
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in raw.splitlines():
        bold = AWS_EXAMPLE.match(line.strip())
        if bold:
            out.append((rst_plain(bold.group(1).strip()), []))
        elif not re.match(r"\s*\.\.\s", line):
            out[-1][1].append(aws_plain(line))
    return [(h, "\n".join(body).strip("\n")) for h, body in out if "".join(body).strip()]


def awscli_rows() -> list[dict]:
    package = _awscli()
    if package is None:
        raise SystemExit("awscli: no awscli package with examples found in a site-packages")
    rows = []
    for path in sorted((package / "examples").glob("*/*.rst")):
        service, command = path.parent.name, path.stem
        raw = path.read_text(encoding="utf-8", errors="replace")
        for s, (heading, body) in enumerate(aws_examples(raw), 1):
            title = f"aws {service} {command}" + (f": {heading}" if heading else "")
            rows += section_rows(f"{service}/{command}", s, title, body)
    for path in sorted((package / "topics").glob("*.rst")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        fields = dict(m.groups() for m in map(AWS_FIELD.match, raw.splitlines()) if m)
        name = fields.get("title", path.stem)
        body = "\n".join(line for line in raw.splitlines() if not AWS_FIELD.match(line))
        sections = [(name, _before_first_heading(body)), *rst_sections(body)]
        for s, (heading, text) in enumerate(sections, 1):
            title = name if heading == name else f"{name}: {heading}"
            plain = "\n".join(aws_plain(line) for line in text.splitlines())
            rows += section_rows(f"topics/{path.stem}", s, title, plain)
    return rows


def _before_first_heading(body: str) -> str:
    lines = body.splitlines()
    for i in range(len(lines) - 1):
        if RST_UNDERLINE.match(lines[i + 1]) and lines[i].strip():
            return "\n".join(lines[:i])
    return body


NPM_DOCS = Path("/usr/lib/node_modules/npm/docs/content")
MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def md_plain(line: str) -> str:
    """A Markdown line as text: links as their text, inline code as its text."""
    return re.sub(r"`([^`]+)`", r"\1", MD_LINK.sub(r"\1", line.rstrip()))


def md_sections(raw: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The front matter's fields and the (heading, text) sections of one Markdown page (fenced
    code kept as it is)."""
    fields: dict[str, str] = {}
    body = raw
    if raw.startswith("---"):
        head, _, body = raw[3:].partition("\n---")
        fields = dict(re.findall(r"^(\w+):\s*(.*)$", head, re.M))
    sections: list[tuple[str, list[str]]] = [("", [])]
    fenced = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else MD_HEADING.match(line)
        if heading:
            sections.append((md_plain(heading.group(2)), []))
        else:
            sections[-1][1].append(line.rstrip() if fenced else md_plain(line))
    return fields, [(h, "\n".join(b).strip("\n")) for h, b in sections if "".join(b).strip()]


def npm_rows() -> list[dict]:
    rows = []
    for path in sorted(NPM_DOCS.glob("*/*.md")):
        fields, sections = md_sections(path.read_text(encoding="utf-8", errors="replace"))
        name = fields.get("title", path.stem)
        for s, (heading, body) in enumerate(sections, 1):
            title = f"{name}: {heading}" if heading else name
            rows += section_rows(f"{path.parent.name}/{path.stem}", s, title, body)
    return rows


BOOK_BLOCK = re.compile(r"(?is)<(h[1-3]|p|li|pre|dt|dd)\b[^>]*>(.*?)</\1>")


def _book_dir() -> Path | None:
    found = sorted(Path.home().glob(".rustup/toolchains/stable-*/share/doc/rust/html/book"))
    return found[-1] if found else None


def book_sections(raw: str, blocks: re.Pattern = BOOK_BLOCK, first: str | None = None
                  ) -> list[tuple[str, str]]:
    """(heading, text) of one chapter page: the ``<main>`` element's headings, paragraphs, list
    items, code listings (indented) and definition lists (a term's line, its description
    indented under it), in order. ``blocks`` says which elements are read; text before the first
    heading is kept under ``first`` (None: left out)."""
    main = re.search(r"(?is)<main\b[^>]*>(.*?)</main>", raw)
    sections: list[tuple[str, list[str]]] = [] if first is None else [(first, [])]
    for match in blocks.finditer(main.group(1) if main else raw):
        tag, inner = match.group(1).lower(), match.group(2)
        text = html_text(inner)
        if tag.startswith("h"):
            heading = text.replace("\u00a7", " ")  # rustdoc's anchor mark
            sections.append((" ".join(heading.split()), []))
        elif sections and tag == "pre":
            lines = text.strip("\n").splitlines()
            sections[-1][1].append("\n".join("    " + line for line in lines))
        elif sections and tag == "dd" and sections[-1][1]:  # under its term, indented
            sections[-1][1][-1] += "\n    " + " ".join(text.split())
        elif sections:
            sections[-1][1].append(" ".join(text.split()))
    return [(h, "\n\n".join(b)) for h, b in sections if "".join(b).strip()]


def rustbook_rows() -> list[dict]:
    book = _book_dir()
    if book is None:
        raise SystemExit("rustbook: no stable Rust toolchain's book under ~/.rustup")
    rows = []
    for path in sorted(book.glob("ch*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        for s, (heading, body) in enumerate(book_sections(raw), 1):
            rows += section_rows(path.stem, s, f"The Rust Programming Language: {heading}", body)
    return rows


def mdbook_rows(folder: str, label: str) -> list[dict]:
    """The pages of a book the stable Rust toolchain ships (``share/doc/rust/html/<folder>``),
    read as ``book_sections``, titled ``<label>: <page>: <heading>``, the page named by its
    ``<title>`` (a command page's first heading is its manual section, "NAME")."""
    book = _book_dir()
    if book is None:
        raise SystemExit(f"{folder}: no stable Rust toolchain's books under ~/.rustup")
    rows = []
    root = book.parent / folder
    for path in sorted(root.rglob("*.html")):
        if path.name in MDBOOK_SKIPPED:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        doc = path.relative_to(root).with_suffix("").as_posix()
        sections = book_sections(raw)
        # "cargo clean - The Cargo Book"
        named = re.search(r"(?is)<title>(.*?) - [^<]*</title>", raw)
        page = html.unescape(" ".join(named.group(1).split())) if named else doc
        for s, (heading, body) in enumerate(sections, 1):
            title = page if heading == page else f"{page}: {heading}"
            rows += section_rows(doc, s, f"{label}: {title}", body)
    return rows


MDBOOK_SKIPPED = frozenset({"print.html", "toc.html", "404.html", "CHANGELOG.html"})


def edition_rows() -> list[dict]:
    return mdbook_rows("edition-guide", "The Rust Edition Guide")


def cargo_rows() -> list[dict]:
    return mdbook_rows("cargo", "The Cargo Book")


def rustref_rows() -> list[dict]:
    return mdbook_rows("reference", "The Rust Reference")


def rustcbook_rows() -> list[dict]:
    return mdbook_rows("rustc", "The rustc book")


RUSTDOC_ITEM = re.compile(r"(?:struct|enum|trait|fn|macro|primitive)\.(\w+)\.html")
RUSTDOC_BLOCK = re.compile(r"(?is)<(h[2-6]|p|li|pre)\b[^>]*>(.*?)</\1>")
RUSTDOC_TOP = re.compile(r'(?s)<details class="toggle top-doc" open>.*?'
                         r'<div class="docblock">(.*?)</div></details>')
# A method and its own docs: the match may not run on into the next method's section (a method
# with no docs has none, and its neighbour's would be read as its own).
RUSTDOC_METHOD = re.compile(r'(?s)<section id="(?:method|tymethod)\.(\w+)" class="method">'
                            r'(?:(?!<section ).)*?</section></summary><div class="docblock">'
                            r'(.*?)</div></details>')
# Where a page's own items end: methods reached through Deref and trait implementations
# (documented on their own pages) follow.
RUSTDOC_BORROWED = re.compile(r'id="(?:deref-methods|trait-implementations)')


def rustdoc_rows() -> list[dict]:
    book = _book_dir()
    if book is None:
        raise SystemExit("rustdoc: no stable Rust toolchain's documentation under ~/.rustup")
    std = book.parent / "std"
    rows = []
    for path in sorted(std.rglob("*.html")):
        item = RUSTDOC_ITEM.fullmatch(path.name)
        if item is None:
            continue
        owner = "::".join(["std", *path.relative_to(std).parent.parts, item.group(1)])
        raw = path.read_text(encoding="utf-8", errors="replace")
        borrowed = RUSTDOC_BORROWED.search(raw)
        raw = raw[:borrowed.start()] if borrowed else raw
        top = RUSTDOC_TOP.search(raw)
        docs = [("", top.group(1))] if top else []
        docs += RUSTDOC_METHOD.findall(raw)
        doc = path.relative_to(std).with_suffix("").as_posix()
        for m, (member, block) in enumerate(docs, 1):
            name = f"{owner}: {member}" if member else owner
            for s, (heading, body) in enumerate(book_sections(block, RUSTDOC_BLOCK, ""), 1):
                title = f"{name}: {heading}" if heading else name
                rows += section_rows(f"{doc}-{m:03d}", s, title, body)
    return rows


GSUTIL = Path("/usr/lib/google-cloud-sdk/platform/gsutil/gslib")
GSUTIL_TEXT = re.compile(r'(?s)"""(.*?)"""')
GSUTIL_HEADING = re.compile(r"^<B>(.*?)</B>\s*$", re.M)


def gsutil_sections(source: str) -> list[tuple[str, str]]:
    """(heading, text) of the help text in one gsutil module: its triple-quoted strings that
    hold ``<B>HEADING</B>`` lines, dedented, inline markup (``<B>``, ``<I>``, double
    backquotes) read as its text."""
    out = []
    for block in GSUTIL_TEXT.findall(source):
        for heading, text in marked_sections(block, GSUTIL_HEADING)[1:]:
            body = re.sub(r"</?[BI]>|``", "", textwrap.dedent(text)).strip("\n")
            if body.strip():
                out.append((heading, body))
    return out


def gsutil_rows() -> list[dict]:
    if not GSUTIL.is_dir():
        raise SystemExit(f"gsutil: no gsutil help under {GSUTIL}")
    rows = []
    for folder, prefix in (("commands", "gsutil"), ("addlhelp", "gsutil help")):
        for path in sorted((GSUTIL / folder).glob("*.py")):
            sections = gsutil_sections(path.read_text(encoding="utf-8", errors="replace"))
            for s, (heading, body) in enumerate(sections, 1):
                title = f"{prefix} {path.stem}: {heading}"
                rows += section_rows(f"{folder}/{path.stem}", s, title, body)
    return rows


KUBECTL_SECTION = re.compile(r"^(Examples|Options|Usage|Available Commands|Aliases):\s*$", re.M)
KUBECTL_COMMAND = re.compile(r"^  ([a-z][\w-]*)\s{2,}\S", re.M)


def _kubectl_help(words: list[str]) -> str:
    return subprocess.run(["kubectl", *words, "--help"], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def kubectl_sections(help_text: str) -> list[tuple[str, str]]:
    """(heading, text) of one ``kubectl ... --help``: the description (heading ""), the
    examples and the options (each option's description indented under it); the usage line,
    the list of subcommands and the closing pointers to other help are left out."""
    out = []
    for heading, body in marked_sections(help_text, KUBECTL_SECTION):
        if heading in ("Usage", "Available Commands", "Aliases"):
            continue
        body = re.sub(r'(?m)^Use "kubectl .*$', "", body).replace("\t", "    ")
        body = textwrap.dedent(body.strip("\n")) if heading == "Examples" else body.strip("\n")
        if body.strip():
            out.append((heading, body))
    return out


def kubectl_rows() -> list[dict]:
    if shutil.which("kubectl") is None:
        raise SystemExit("kubectl: not installed")
    commands = [[c] for c in KUBECTL_COMMAND.findall(_kubectl_help([]))]
    for command in list(commands):
        listed = _kubectl_help(command).partition("Available Commands:")[2]
        listed = listed.split("\n\n", 1)[0]
        commands += [[*command, sub] for sub in KUBECTL_COMMAND.findall(listed)]
    rows = []
    for words in sorted(commands):
        name = " ".join(["kubectl", *words])
        for s, (heading, body) in enumerate(kubectl_sections(_kubectl_help(words)), 1):
            rows += section_rows("kubectl/" + "-".join(words), s,
                                 f"{name}: {heading}" if heading else name, body)
    return rows


NUMPYDOC_HEADING = re.compile(r"^(\S[^\n]*)\n-{3,}\s*$", re.M)
NUMPYDOC_SKIPPED = frozenset({"See Also", "References"})


def numpydoc_sections(doc: str) -> list[tuple[str, str]]:
    """(heading, text) of a numpydoc docstring: the summary first (heading ""), then each
    underlined section."""
    return [(h, t.strip("\n")) for h, t in marked_sections(doc, NUMPYDOC_HEADING)
            if t.strip() and h not in NUMPYDOC_SKIPPED]


def pandas_rows() -> list[dict]:
    pandas = importlib.import_module("pandas")
    names = [(n, getattr(pandas, n)) for n in sorted(dir(pandas))
             if not n.startswith("_") and callable(getattr(pandas, n))]
    for owner in ("DataFrame", "Series", "Index"):
        cls = getattr(pandas, owner)
        names += [(f"{owner}.{n}", getattr(cls, n)) for n in sorted(vars(cls))
                  if not n.startswith("_") and callable(getattr(cls, n, None))]
    rows = []
    for name, obj in names:
        doc = pydoc.getdoc(obj)
        if not doc or len(doc.split()) < 25:
            continue
        for s, (heading, body) in enumerate(numpydoc_sections(doc), 1):
            title = f"pandas: {name}" + (f": {heading}" if heading else "")
            rows += section_rows(f"pandas/{name}", s, title, body)
    return rows


NODE_API = Path("/usr/share/doc/nodejs/api")
MD_COMMENT = re.compile(r"(?s)<!--.*?-->")
MD_LINK_DEFINITION = re.compile(r"(?m)^\[[^\]]+\]:\s+\S.*$")
MD_REFERENCE = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")


def nodejs_rows() -> list[dict]:
    rows = []
    for path in sorted(NODE_API.glob("*.md")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        raw = MD_REFERENCE.sub(r"\1", MD_LINK_DEFINITION.sub("", MD_COMMENT.sub("", raw)))
        raw = re.sub(r"(?m)\\$", "", raw)  # a Markdown hard line break
        _, sections = md_sections(raw)
        first = re.search(r"(?m)^# (.+)$", raw)
        name = md_plain(first.group(1)).strip() if first else path.stem
        for s, (heading, body) in enumerate(sections, 1):
            title = f"Node.js {name}: {heading}" if heading and heading != name else \
                f"Node.js {name}"
            rows += section_rows(f"nodejs/{path.stem}", s, title, body)
    return rows


def manual_page_rows(path: Path, doc: str, label: str) -> list[dict]:
    """The passages of one manual page, rendered and cut as ``manpage_corpus.py`` does, titled
    ``<label>: <Section>``; ids ``<doc>-<passage>``; passages under 25 words are left out."""
    import manpage_corpus

    passages = manpage_corpus.passages(label, manpage_corpus.render(path), WORDS)
    return [{"id": f"{doc}-{i:02d}", "doc_id": doc, "title": title, "text": body}
            for i, (title, body) in enumerate(passages, 1) if len(body.split()) >= 25]


def pgsql_rows() -> list[dict]:
    rows = []
    for path in sorted(Path("/usr/share/postgresql").glob("*/man/man7/*.7.gz")):
        page = path.name.removesuffix(".7.gz")  # ALTER_TABLE
        rows += manual_page_rows(path, f"pgsql/{page}", f"PostgreSQL {page.replace('_', ' ')}")
    return rows


PYLIB_MODULES = ("tornado.web", "tornado.httpclient", "tornado.ioloop", "jinja2.environment",
                 "click.core", "click.decorators", "requests.sessions", "requests.models",
                 "urllib3.poolmanager", "urllib3.util.retry", "rich.console", "rich.table",
                 "rich.progress", "fsspec.spec", "hypothesis.strategies", "packaging.version",
                 "toolz.itertoolz")


def _documented(module: object) -> list[tuple[str, object]]:
    """(qualified name, object) of the public classes and functions defined in ``module``, each
    class followed by its public methods defined in the class itself."""
    out = []
    name = module.__name__
    for attr in sorted(a for a in dir(module) if not a.startswith("_")):
        obj = getattr(module, attr)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)) or \
                getattr(obj, "__module__", "") != name:
            continue
        out.append((attr, obj))
        if inspect.isclass(obj):
            out += [(f"{attr}.{m}", getattr(obj, m)) for m in sorted(vars(obj))
                    if not m.startswith("_") and callable(getattr(obj, m, None))]
    return out


def pylibs_rows() -> list[dict]:
    rows = []
    for name in PYLIB_MODULES:
        module = importlib.import_module(name)
        for qualified, obj in _documented(module):
            rows += docstring_rows(name, qualified, inspect.getdoc(obj) or "")
    return rows


PERLDIAG = POD_ROOT / "pod" / "perldiag.pod"


def perldiag_rows() -> list[dict]:
    rows = []
    raw = PERLDIAG.read_text(encoding="utf-8", errors="replace")
    for i, item in enumerate(re.split(r"\n=item ", raw)[1:], 1):
        message, _, body = item.partition("\n\n")  # an =item paragraph may wrap
        paragraphs = [para.rstrip() if para[:1] in " \t" else pod_plain(" ".join(para.split()))
                      for para in re.split(r"\n[ \t]*\n", body)
                      if para.strip() and not re.match(r"\s*=\w", para)]
        text = "\n\n".join(paragraphs)
        if len(text.split()) < 12:
            continue
        message = pod_plain(" ".join(message.split()))
        rows.append({"id": f"perldiag-{i:04d}", "doc_id": "perldiag",
                     "title": f"perldiag: {message}", "text": f"{message}\n\n{text}"})
    return rows


APACHE_MODULES = Path("/usr/share/doc/apache2-doc/manual/en/mod")
APACHE_DIRECTIVE = re.compile(r'(?s)<div class="directive-section"><h2[^>]*>(.*?)</h2>(.*?)'
                              r'(?=<div class="directive-section">|<div class="bottomlang">|\Z)')
APACHE_BLOCK = re.compile(r"(?is)<(tr|p|pre|li)\b[^>]*>(.*?)</\1>")


def apache_rows() -> list[dict]:
    rows = []
    for path in sorted(APACHE_MODULES.glob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        for s, (heading, body) in enumerate(APACHE_DIRECTIVE.findall(raw), 1):
            heading = html_line(heading).replace("\u00b6", "").strip()
            blocks = []
            for tag, inner in APACHE_BLOCK.findall(body):
                if tag.lower() == "pre":
                    blocks.append(html_text(inner).rstrip())
                else:  # a table row's label and value apart: "Syntax: Alias [URL-path] ..."
                    blocks.append(html_line(inner.replace("</th>", " ")))
            text = "\n\n".join(b for b in blocks if b.strip())
            rows += section_rows(f"apache/{path.stem}", s, f"Apache {path.stem}: {heading}", text)
    return rows


SQLITE_C_API = Path("/usr/share/doc/sqlite3/c3ref")


def sqlite_rows() -> list[dict]:
    rows = []
    for path in sorted(SQLITE_C_API.glob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        # the page's own part: after the site header's "SQLite C Interface" heading
        own = raw.split("<h2>SQLite C Interface</h2>", 1)[-1]
        for s, (heading, body) in enumerate(book_sections(own), 1):
            rows += section_rows(f"sqlite/{path.stem}", s, f"SQLite C interface: {heading}", body)
    return rows


GO_SOURCE = Path("/usr/share/go-1.19/src")
GO_SKIPPED = {"internal", "vendor", "testdata", "cmd"}
# A doc comment (``//`` lines) right above an exported declaration or the package clause.
GO_DOC = re.compile(r"(?m)((?:^//.*\n)+)^(?:func (?:\([^)]*?\*?(\w+)\) )?([A-Z]\w*)|"
                    r"(?:type|const|var) ([A-Z]\w*)|(package) \w+)")


def go_comment(lines: str) -> str:
    """A ``//`` comment as ``go doc`` shows it: the slashes and one space dropped, a line
    indented further (code) kept as it is, compiler directives (``//go:build``) left out."""
    out = []
    for line in lines.splitlines():
        if re.match(r"//(?:go:|line )", line):
            continue  # a compiler directive, which go doc does not show
        body = line[2:]
        out.append(body[1:] if body.startswith(" ") and not body.startswith("  ") else body)
    return "\n".join(out).strip()


def golang_rows() -> list[dict]:
    rows, seen = [], set()
    for path in sorted(GO_SOURCE.rglob("*.go")):
        parts = path.relative_to(GO_SOURCE).parts
        if path.name.endswith("_test.go") or GO_SKIPPED & set(parts[:-1]):
            continue
        package = "/".join(parts[:-1])
        raw = path.read_text(encoding="utf-8", errors="replace")
        for match in GO_DOC.finditer(raw):
            receiver, func, other, clause = match.group(2, 3, 4, 5)
            name = "package" if clause else f"{receiver}.{func}" if receiver else func or other
            if (package, name) in seen or (receiver and not receiver[0].isupper()):
                continue  # documented already (another platform's file), or not exported
            seen.add((package, name))
            text = go_comment(match.group(1))
            rows += docstring_rows(f"go/{package}", name, text, f"Go {package}: {name}")
    return rows


RUBY_RI = Path("/usr/share/ri/3.1.0/system")
# Each class's and method's comment from the ri store, one JSON line each: name, call sequence
# (arglists) and the comment as RDoc's plain-text formatter writes it.
RUBY_DUMP = """
require "rdoc"
require "json"
store = RDoc::RI::Store.new(ARGV[0])
store.load_cache
text = ->(comment) { comment.respond_to?(:accept) ? comment.accept(RDoc::Markup::ToRdoc.new) : "" }
store.module_names.sort.each do |name|
  klass = store.load_class(name) rescue next
  puts JSON.generate({name: name, calls: "", text: text.(klass.comment)})
  [["#", store.instance_methods], ["::", store.class_methods]].each do |sep, table|
    (table[name] || []).sort.each do |method|
      found = store.load_method(name, sep + method) rescue next
      puts JSON.generate({name: name + sep + method, calls: found.arglists.to_s,
                          text: text.(found.comment)})
    end
  end
end
"""


def ruby_rows() -> list[dict]:
    dump = subprocess.run(["ruby", "-e", RUBY_DUMP, str(RUBY_RI)], capture_output=True,
                          text=True, check=True).stdout
    rows, seen = [], set()
    for line in dump.splitlines():
        entry = json.loads(line)
        comment = re.sub(r"</?(?:tt|var|em|b|i|code)>", "", entry["text"]).strip()
        if comment in seen:
            continue  # an alias: the comment of the method it names
        seen.add(comment)
        text = f"{entry['calls'].strip()}\n\n{comment}" if entry["calls"].strip() else comment
        rows += docstring_rows("ruby", entry["name"], text, f"Ruby {entry['name']}")
    return rows


R_PACKAGES = ("base", "stats", "utils", "graphics", "grDevices", "methods", "tools")
# Each help page as ``?name`` prints it, one record a page: package, name, text (the unit
# separator between them, the record separator after).
R_DUMP = """
tools::Rd2txt_options(underline_titles = FALSE, itemBullet = "* ", sectionIndent = 0,
                     sectionExtra = 0)
options(useFancyQuotes = FALSE)
for (pkg in commandArgs(TRUE)) {
  db <- tools::Rd_db(pkg)
  for (file in names(db)) {
    text <- capture.output(tools::Rd2txt(db[[file]], out = stdout(), package = pkg))
    cat(pkg, "\x1f", sub("[.]Rd$", "", file), "\x1f", paste(text, collapse = "\n"), "\x1e",
        sep = "")
  }
}
"""
R_SECTION = re.compile(r"(?m)^([A-Z][\w ()'/-]*):\n\n")
R_SKIPPED = {"References", "See Also", "Examples", "Author(s)", "Author", "Authors", "Source",
             "Usage", "Copyright", "Keywords"}


def rhelp_rows() -> list[dict]:
    dump = subprocess.run(["Rscript", "-e", R_DUMP, *R_PACKAGES], capture_output=True,
                          text=True, check=True).stdout
    rows = []
    for record in dump.split("\x1e"):
        if record.count("\x1f") != 2:
            continue
        package, name, text = record.split("\x1f")
        for s, (heading, body) in enumerate(marked_sections(text, R_SECTION)):
            if heading and heading not in R_SKIPPED:
                rows += section_rows(f"r/{package}/{name}", s, f"R {package} {name}: {heading}",
                                     body)
    return rows


GNUPLOT_HELP = Path("/usr/share/doc/gnuplot/gnuplot.gih.gz")


def gnuplot_rows() -> list[dict]:
    rows = []
    raw = gzip.decompress(GNUPLOT_HELP.read_bytes()).decode("utf-8", errors="replace")
    topics = re.split(r"\n(?=\?)", raw)
    title = ""
    for t, topic in enumerate(topics, 1):
        keys = [line[1:].strip() for line in topic.splitlines() if line.startswith("?")]
        body = "\n".join(line[1:] if line.startswith(" ") else line
                         for line in topic.splitlines() if not line.startswith("?"))
        if keys and not title:
            title = keys[0].removeprefix("commands ")
        if not body.strip():
            continue  # a run of keys continues on the next line
        rows += section_rows(f"gnuplot/{t:04d}", 1, f"gnuplot: {title}", body.replace("`", ""))
        title = ""
    return rows


PROLOG_MANUAL = Path("/usr/share/swi-prolog/doc/Manual")
# A run of definition terms of documented predicates (heads), up to the next run.
PROLOG_ENTRY = re.compile(r'(?s)((?:<dt class="pubdef">.*?</dt>\s*)+)(.*?)'
                          r'(?=<dt class="pubdef">|<h[1-4]|\Z)')


def prolog_rows() -> list[dict]:
    rows = []
    for path in sorted(PROLOG_MANUAL.glob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        for e, (heads, body) in enumerate(PROLOG_ENTRY.findall(raw), 1):
            name = re.search(r'<a id="([^"]+)"', heads)
            if name is None:
                continue
            signature = "\n".join(html_line(h)
                                  for h in re.findall(r"(?s)<dt[^>]*>(.*?)</dt>", heads))
            text = f"{signature}\n\n{html_text(body).strip()}"
            rows += section_rows(f"prolog/{path.stem}", e, f"SWI-Prolog {name.group(1)}", text)
    return rows


ERLANG_DOC = Path("/usr/share/doc/erlang-doc/lib")
ERLANG_FUNCTION = re.compile(r'(?s)<article class="func">(.*?)</article>')
ERLANG_HEAD = re.compile(r'(?s)<h4 id="([^"]+)"[^>]*>.*?<span class="title-name">(.*?)</span>\s*'
                         r'</h4>')
ERLANG_BODY = re.compile(r'(?s)<div class="exports-tube">(.*)')


def erlang_rows() -> list[dict]:
    rows = []
    for path in sorted(ERLANG_DOC.glob("*/doc/html/*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        for f, article in enumerate(ERLANG_FUNCTION.findall(raw), 1):
            heads = ERLANG_HEAD.findall(article)
            body = ERLANG_BODY.search(article)
            if not heads or body is None:
                continue
            name, arity = heads[0][0].rpartition("-")[::2]
            signature = "\n".join(html_line(h) for _, h in heads)
            text = f"{signature}\n\n{html_text(body.group(1)).strip()}"
            rows += section_rows(f"erlang/{path.stem}", f, f"Erlang {path.stem}:{name}/{arity}",
                                 text)
    return rows


RACKET_REFERENCE = Path("/usr/share/doc/racket/reference")
RACKET_BOX = '<blockquote class="SVInsetFlow">'
RACKET_NAME = re.compile(r'<a name="\(def\._\(\([^"]*?\)\._([^"]+?)\)\)"')
RACKET_HEAD = re.compile(r'(?s)<p class="RForeground">(.*?)</p>')


def racket_name(anchor: str) -> str:
    """A definition's name from its anchor, whose ``~3f`` is ``?`` (hex after a tilde)."""
    return re.sub(r"~([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), anchor)


def racket_rows() -> list[dict]:
    rows = []
    for path in sorted(RACKET_REFERENCE.glob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        for d, box in enumerate(raw.split(RACKET_BOX)[1:], 1):
            box = re.split(r"<h\d", box, maxsplit=1)[0]
            name, head = RACKET_NAME.search(box), RACKET_HEAD.search(box)
            if name is None or head is None or "</table></blockquote>" not in box:
                continue
            body = box.split("</table></blockquote>", 1)[1].split('<div class="navsetbottom"')[0]
            # one paragraph a block: the HTML puts blocks side by side without white space
            body = re.sub(r"(?i)</(?:p|div|li|blockquote|tr)>|<br\s*/?>", "\n\n", body)
            paragraphs = [" ".join(p.split()) for p in html_text(body).split("\n\n")]
            text = "\n\n".join([html_line(head.group(1)), *(p for p in paragraphs if p)])
            rows += section_rows(f"racket/{path.stem}", d, f"Racket {racket_name(name.group(1))}",
                                 text)
    return rows


GTK_DOC = Path("/usr/share/gtk-doc/html")
GTK_BOOKS = {"gtk3": "GTK 3", "gdk3": "GDK 3", "glib": "GLib", "gio": "GIO", "gobject": "GObject"}
GTK_MEMBER = re.compile(r'(?s)<td class="(parameter|enum_member|struct_member)_name">(.*?)</td>\s*'
                        r'<td class="\1_description">(.*?)</td>')
GTK_LINE = "\x00"  # a line break kept when a paragraph's white space is made single spaces


def _pre_lines(match: re.Match) -> str:
    return match.group().replace("\n", GTK_LINE)


def marked_paragraphs(fragment: str) -> str:
    """The text of ``fragment`` (HTML whose blocks end in blank lines), one paragraph a
    blank-line-separated run, its white space made single spaces but for the ``GTK_LINE``
    marks, which become line breaks."""
    paragraphs = (re.sub(r" *\x00 *", "\n", " ".join(p.split()))
                  for p in html_text(fragment).split("\n\n"))
    return "\n\n".join(p.strip() for p in paragraphs if p.strip())


def gtkdoc_text(fragment: str) -> str:
    """A gtk-doc block as text: one paragraph a ``<p>``, ``<pre>`` (its lines kept) or heading,
    white space otherwise single spaces; a parameter, member or field table as its heading
    ("Parameters:") then a "name: description" line a row; code listings without their line
    numbers."""
    fragment = re.sub(r'(?s)<td class="listing_lines".*?</td>', "", fragment)
    fragment = re.sub(r"(?s)<pre.*?</pre>", _pre_lines, fragment)
    fragment = GTK_MEMBER.sub(
        lambda m: f"{GTK_LINE}{html_line(m.group(2))}: {html_line(m.group(3))}", fragment)
    fragment = re.sub(r"(?s)<h4>(.*?)</h4>", r"\1:", fragment)
    fragment = re.sub(r"(?i)</(?:p|pre|h[1-4]|table)>", "\n\n", fragment.replace("\n", " "))
    return marked_paragraphs(fragment)


def gtkdoc_rows() -> list[dict]:
    rows = []
    for book, label in GTK_BOOKS.items():
        for path in sorted((GTK_DOC / book).glob("*.html")):
            raw = path.read_text(encoding="utf-8", errors="replace")
            page = re.search(r"<title>([^:<]+)", raw)
            if page is None or "refentry" not in raw:
                continue
            description = re.search(r'(?s)<div class="refsect1">\s*<a name="[^"]*description">'
                                    r'</a>(.*?)(?=<div class="refsect1">|<div class="footer")', raw)
            blocks = raw.split('<div class="refsect2">')[1:]
            sections = [("", description.group(1) if description else "")] + [
                (html_line(h.group(1)), block) for block in blocks
                if (h := re.search(r"(?s)<h3>(.*?)</h3>", block))]
            for n, (heading, block) in enumerate(sections):
                block = re.sub(r"(?s)<h[23]>.*?</h[23]>", "", block, count=1)
                name = heading.removesuffix(" ()") or "description"
                rows += section_rows(f"gtkdoc/{book}/{path.stem}", n,
                                     f"{label} {page.group(1).strip()}: {name}",
                                     gtkdoc_text(block))
    return rows


OCAML_MAN = Path("/usr/share/man/man3")
OCAML_ENTRY = re.compile(r"^(val|type|exception|external|module|class|method) +"
                         r"(?:'\w+ |\([^)]*\) )*([\w']+)", re.M)


def ocaml_entries(page: str) -> list[tuple[str, str]]:
    """(entry, text) of one rendered OCaml library page: its "Documentation" section (the
    running footer left out) cut at each
    declaration at the margin (``val length : 'a list -> int`` -> ``length``, ``type 'a t`` ->
    ``type t``), the page's indentation and the justified text's runs of spaces removed."""
    body = page.split("\nDocumentation\n", 1)[-1].rstrip()
    body = body.rsplit("\n", 1)[0]  # the running footer: "OCamldoc 2023-02-12 Stdlib.List(3o)"
    lines = [re.sub(r"(?<=\S)  +", " ", line[7:] if line.startswith(" " * 7) else line.strip())
             for line in body.splitlines()]
    text = "\n".join(lines)
    marks = list(OCAML_ENTRY.finditer(text))
    return [(m.group(2) if m.group(1) == "val" else f"{m.group(1)} {m.group(2)}",
             text[m.start():after.start() if after else None].strip())
            for m, after in zip(marks, [*marks[1:], None], strict=False)]


def ocaml_rows() -> list[dict]:
    import manpage_corpus

    rows = []
    for path in sorted(OCAML_MAN.glob("Stdlib.*.3o.gz")):
        module = path.name.removesuffix(".3o.gz")
        page = manpage_corpus.render(path)
        for n, (entry, text) in enumerate(ocaml_entries(page), 1):
            rows += section_rows(f"ocaml/{module}", n, f"OCaml {module}: {entry}", text)
    return rows


HADDOCK = Path("/usr/share/doc/ghc-doc/html/libraries")
HADDOCK_PACKAGES = ("base", "containers", "bytestring", "text", "directory", "filepath",
                    "process", "time", "mtl", "stm", "parsec", "array", "deepseq")
HADDOCK_NAME = re.compile(r'class="def">([^<]+)<')


def haddock_entry(top: str) -> tuple[str, str] | None:
    """(name, text) of one Haddock declaration block: its signature on one line (the "Source"
    and anchor links left out), then its documentation, one paragraph a ``<p>``, ``<pre>``
    (its lines kept) or list item; the constructor, field and instance tables left out."""
    own = re.split(r'<div class="subs|<a href="#g:|<h\d', top, maxsplit=1)[0]
    name = HADDOCK_NAME.search(own)
    if name is None or "</p>" not in own:
        return None
    source, doc = own.split("</p>", 1)
    source = re.sub(r'<a [^>]*class="(?:link|selflink)"[^>]*>.*?</a>', "", source)
    doc = re.sub(r"(?s)<pre[^>]*>(.*?)</pre>", lambda m: m.group(1).replace("\n", GTK_LINE)
                 + "\n\n", doc)
    doc = re.sub(r"(?i)</(?:p|li|h\d)>", "\n\n", doc.replace("\n", " "))
    return html.unescape(name.group(1)), f"{html_line(source)}\n\n{marked_paragraphs(doc)}"


def haskell_rows() -> list[dict]:
    rows = []
    for package in HADDOCK_PACKAGES:
        for folder in sorted(HADDOCK.glob(f"{package}-[0-9]*")):
            for path in sorted(folder.glob("*.html")):
                module = path.stem.replace("-", ".")
                if not re.fullmatch(r"[A-Z][\w.]*", module) or module.startswith("GHC."):
                    continue  # the package's index pages; GHC's internals (primops...)
                raw = path.read_text(encoding="utf-8", errors="replace")
                for n, top in enumerate(raw.split('<div class="top">')[1:], 1):
                    entry = haddock_entry(top)
                    if entry is not None:
                        rows += section_rows(f"haskell/{package}/{module}", n,
                                             f"Haskell {module}: {entry[0]}", entry[1])
    return rows


def tcl_rows() -> list[dict]:
    rows = []
    for path in sorted(Path("/usr/share/man/man3").glob("[a-z]*.3tcl.gz")):
        if path.is_symlink():
            continue  # another name of a page taken under its own
        page = path.name.removesuffix(".3tcl.gz")  # lsort
        rows += manual_page_rows(path, f"tcl/{page}", f"Tcl {page}")
    return rows


SDL_DOC = Path("/usr/share/doc/libsdl2-doc/html")
DOXYGEN_PARAMETER = re.compile(r'(?s)<td class="paramname">(.*?)</td>\s*<td>(.*?)</td>')


def doxygen_text(memdoc: str) -> str:
    """A Doxygen member's documentation as text: one paragraph a ``<p>`` or section ("Returns:
    ...", "See also: ..."), a parameter table as "name: description" lines, the "Definition
    at line" note left out."""
    memdoc = re.sub(r'(?s)<p class="definition">.*?</p>', "", memdoc)
    memdoc = DOXYGEN_PARAMETER.sub(
        lambda m: f"{GTK_LINE}{html_line(m.group(1))}: {html_line(m.group(2))}", memdoc)
    memdoc = re.sub(r"(?s)<pre.*?</pre>", _pre_lines, memdoc).replace("\n", " ")
    memdoc = re.sub(r"(?s)<dt>(.*?)</dt>", r"\n\n\1: ", memdoc)
    memdoc = re.sub(r"(?i)</(?:p|pre|dd|dl|table|div)>", "\n\n", memdoc)
    return marked_paragraphs(memdoc)


def sdl_rows() -> list[dict]:
    rows = []
    for path in sorted(SDL_DOC.glob("*/*/*_8h.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        header = re.search(r'<div class="title">([^<]+?) File Reference</div>', raw)
        if header is None:
            continue
        items = re.findall(r'(?s)<h2 class="memtitle">(.*?)</h2>\s*<div class="memitem">\s*'
                           r'<div class="memproto">(.*?)</div><div class="memdoc">(.*?)'
                           r'(?=<a id=|<h2 class="groupheader">|<hr class="footer")', raw)
        for n, (title, proto, memdoc) in enumerate(items, 1):
            name = html_line(title).lstrip("\u25c6 \xa0").strip()
            text = f"{html_line(proto)}\n\n{doxygen_text(memdoc)}"
            rows += section_rows(f"sdl/{header.group(1)}", n, f"SDL2 {header.group(1)}: {name}",
                                 text)
    return rows


CPPREFERENCE = Path("/usr/share/cppreference/doc/html/en/cpp")
CPP_SKIPPED = frozenset({"Example", "Examples", "See also", "Possible implementation",
                         "Defect reports", "References", "External links"})
CPP_PARAMETER = re.compile(r'(?s)<tr class="t-par">\s*<td>(.*?)</td>\s*<td>.*?</td>\s*'
                           r'<td>(.*?)</td>\s*</tr>')


def cppreference_text(fragment: str) -> str:
    """A section of a cppreference page as text: one paragraph a ``<p>``, list item, block or
    heading, a parameter table as "name - description" lines, code as its text."""
    fragment = CPP_PARAMETER.sub(
        lambda m: f"{GTK_LINE}{html_line(m.group(1))} - {html_line(m.group(2))}", fragment)
    fragment = re.sub(r"(?s)<pre.*?</pre>", _pre_lines, fragment).replace("\n", " ")
    fragment = re.sub(r"(?i)</(?:p|div|li|tr|table|h\d|dd)>|<br\s*/?>", "\n\n", fragment)
    return marked_paragraphs(fragment)


def cppreference_rows() -> list[dict]:
    rows = []
    for path in sorted(CPPREFERENCE.rglob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        name = re.search(r'(?s)<h1 id="firstHeading"[^>]*>(.*?)</h1>', raw)
        body = raw.split("<!-- bodycontent -->", 1)[-1].split('<div class="printfooter">')[0]
        if name is None:
            continue
        # the page's navigation bar ends with its last separator; the content follows
        separator = '<div class="t-navbar-sep">'
        body = body[body.rfind(separator) + len(separator):] if separator in body else body
        body = re.sub(r'(?s)<table class="t-dcl-begin".*?</table>', "", body)
        parts = re.split(r'(?s)<h3>.*?<span class="mw-headline"[^>]*>(.*?)</span>.*?</h3>', body)
        sections = [("", parts[0])] + list(zip(parts[1::2], parts[2::2], strict=False))
        page = html_line(name.group(1))
        doc = "cpp/" + path.relative_to(CPPREFERENCE).with_suffix("").as_posix()
        for n, (heading, fragment) in enumerate(sections):
            heading = html_line(heading)
            if heading in CPP_SKIPPED:
                continue
            title = f"C++ {page}: {heading}" if heading else f"C++ {page}"
            rows += section_rows(doc, n, title, cppreference_text(fragment))
    return rows


ADA_RM = Path("/usr/share/doc/ada-reference-manual-2012/arm2012.txt")
# A clause heading at the margin: "A.4.3 Fixed-Length String Handling" (not a paragraph's line
# that starts with a clause number: "A.8.3 for sequential input-output, are also ...").
ADA_CLAUSE = re.compile(r"(?m)^((?:\d{1,2}|[A-H])(?:\.\d+)+) ([A-Z][^\n]*)$")


def ada_clause(number: str, path: Path) -> bool:
    """Whether a clause ``number`` belongs to the file ``path`` (``rm-04.TXT``: 4.x; ``rm-A.TXT``:
    A.x): a paragraph of Annex H that opens "4.1 Execution ..." is no clause 4.1."""
    return number.split(".")[0].lstrip("0") == path.stem.removeprefix("rm-").lstrip("0")


def ada_rows() -> list[dict]:
    rows = []
    for path in sorted(ADA_RM.glob("rm-*.TXT")):
        if not re.fullmatch(r"rm-(?:0[1-9]|1[0-3]|[A-H])\.TXT", path.name):
            continue  # the front matter, the index, the contents and the informative annexes
        text = path.read_text(encoding="latin-1")
        marks = [m for m in ADA_CLAUSE.finditer(text) if ada_clause(m.group(1), path)]
        for n, (here, after) in enumerate(zip(marks, [*marks[1:], None], strict=False)):
            number, name = here.group(1), here.group(2).strip()
            body = text[here.end():after.start() if after else None]
            rows += section_rows(f"ada/{number}", n, f"Ada RM {number}: {name}", body)
    return rows



PERMALINK = re.compile(r'(?s)<a class="headerlink".*?</a>')  # Sphinx's "¶" after a heading


def html_blocks(fragment: str) -> str:
    """Generated HTML as text: one paragraph a ``<p>``, list item, table row, heading or
    definition (its term a line above its description), code with its lines kept, comments and
    permalink marks left out."""
    fragment = PERMALINK.sub("", re.sub(r"(?s)<!--.*?-->", "", fragment))
    fragment = re.sub(r"(?s)<pre.*?</pre>", _pre_lines, fragment).replace("\n", " ")
    fragment = re.sub(r"(?i)</dt>", GTK_LINE, fragment)
    fragment = re.sub(r"(?i)</t[dh]>", " ", fragment)
    fragment = re.sub(r"(?i)</(?:p|pre|li|tr|table|h\d|dd|div)>|<br\s*/?>", "\n\n", fragment)
    return marked_paragraphs(fragment)


def heading_sections(body: str, headings: str) -> list[tuple[str, str]]:
    """(heading text, fragment) of ``body`` cut at the elements matched by ``headings`` (a
    regular expression whose group 1 is the heading's inner HTML, its permalink mark left out),
    the text before the first under the heading ""."""
    parts = re.split(headings, body)
    return [("", parts[0])] + [(html_line(PERMALINK.sub("", heading)), fragment)
                               for heading, fragment in zip(parts[1::2], parts[2::2], strict=False)]


def page_heading(sections: list[tuple[str, str]]) -> str | None:
    """The first heading of ``heading_sections``'s ``sections`` that has text (None: none)."""
    return next((heading for heading, _ in sections if heading), None)


def titled_rows(doc: str, page: str, sections: list[tuple[str, str]], *, name: str | None = None,
                skipped: frozenset[str] = frozenset()) -> list[dict]:
    """The passages of ``sections`` (``heading_sections``'s), titled ``page: heading``: ``page``
    alone before the first heading and under a heading that repeats ``name`` (the page's own);
    a heading whose part before any colon is in ``skipped`` is left out."""
    rows = []
    for n, (heading, fragment) in enumerate(sections):
        if heading.split(":")[0] in skipped:
            continue
        title = page + (f": {heading}" if heading and heading != name else "")
        rows += section_rows(doc, n, title, html_blocks(fragment))
    return rows


# A heading of any of the first four levels, as most generated HTML writes them.
HTML_HEADINGS = r'(?s)<h[1-4][^>]*>(.*?)</h[1-4]>'


def headed_rows(doc: str, label: str, body: str, fallback: str,
                headings: str = HTML_HEADINGS) -> list[dict]:
    """``titled_rows`` of ``body`` cut at ``headings``, the page titled ``<label> <first
    heading>`` (``fallback`` when it has none)."""
    sections = heading_sections(body, headings)
    page = page_heading(sections) or fallback
    return titled_rows(doc, f"{label} {page}", sections, name=page)


QT_DOC = Path("/usr/share/qt5/doc")
QT_HEADINGS = r'(?s)<h[23][^>]*>(.*?)</h[23]>'


def qt_rows() -> list[dict]:
    rows = []
    for path in sorted(QT_DOC.glob("*/*.html")):
        if path.stem.endswith(("-members", "-obsolete", "-compat")):
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        page = re.search(r"(?s)<h1 class=\"title\">(.*?)</h1>", raw)
        if page is None or '<div class="descr">' not in raw:
            continue
        body = raw.split('<div class="descr">', 1)[1].split('<div class="footer">')[0]
        doc = f"qt/{path.parent.name}/{path.stem}"
        rows += titled_rows(doc, f"Qt {html_line(page.group(1))}",
                            heading_sections(body, QT_HEADINGS))
    return rows


LLVM_DOC = Path("/usr/share/doc/llvm-19-doc/html")


def sphinx_body(raw: str) -> str | None:
    """The main text of a page of Sphinx's classic HTML (before its sidebar, bottom navigation and
    footer), None for a page without one."""
    if '<div class="body" role="main">' not in raw:
        return None
    body = raw.split('<div class="body" role="main">', 1)[1]
    return re.split(r'<div class="(?:related|footer|sphinxsidebar)"', body)[0]


def sphinx_rows(folder: Path, doc: str, label: str, skipped: frozenset[str],
                pages: str = "*.html") -> list[dict]:
    """``headed_rows`` of the main text of each page of Sphinx's classic HTML in ``folder`` that
    ``pages`` matches (``**/*.html``: its subfolders too), the pages named in ``skipped`` and the
    folders Sphinx keeps its own files in (``_static``, ``_sources``) left out; a page's id is
    its path under ``folder`` without the suffix."""
    rows = []
    for path in sorted(folder.glob(pages)):
        part = path.relative_to(folder)
        body = None if path.stem in skipped or part.parts[0].startswith("_") else sphinx_body(
            path.read_text(encoding="utf-8", errors="replace"))
        if body is not None:
            rows += headed_rows(f"{doc}/{part.with_suffix('').as_posix()}", label, body, path.stem)
    return rows


def llvm_rows() -> list[dict]:
    rows = []
    for path in sorted(LLVM_DOC.rglob("*.html")):
        if path.name in ("genindex.html", "search.html") or "_" in path.parts[-2][:1]:
            continue
        body = sphinx_body(path.read_text(encoding="utf-8", errors="replace"))
        if body is None:
            continue
        sections = heading_sections(body, HTML_HEADINGS)
        name = page_heading(sections)
        if name is None:
            continue
        doc = "llvm/" + path.relative_to(LLVM_DOC).with_suffix("").as_posix()
        rows += titled_rows(doc, name if name.startswith("LLVM") else f"LLVM {name}", sections,
                            name=name)
    return rows


DJANGO_DOC = Path("/usr/share/doc/python-django-doc/html")
DJANGO_PARTS = ("faq", "howto", "internals", "intro", "misc", "ref", "topics")


def django_rows() -> list[dict]:
    rows = []
    for part in DJANGO_PARTS:
        for path in sorted((DJANGO_DOC / part).rglob("*.html")):
            raw = path.read_text(encoding="utf-8", errors="replace")
            body = re.split(r'<div class="yui-g" id="[^"]*">', raw, maxsplit=1)
            if len(body) < 2:
                continue
            body = body[1].split('<div class="yui-b" id="sidebar">')[0]
            sections = heading_sections(body, HTML_HEADINGS)
            name = page_heading(sections)
            if name is None:
                continue
            doc = "django/" + path.relative_to(DJANGO_DOC).with_suffix("").as_posix()
            rows += titled_rows(doc, f"Django {name}", sections, name=name)
    return rows


OCTAVE_DOC = Path("/usr/share/doc/octave/octave.html")
# A heading, or a function's definition list, whose first call form names it.
MAKEINFO_PARTS = (r'(?s)<h[2-4][^>]*>(.*?)</h[2-4]>|<dl class="def">\s*<dt[^>]*>.*?<strong[^>]*>'
                r'(.*?)</strong>')


def makeinfo_rows(body: str, doc: str, label: str, page: str, *, one_page: bool = False
                  ) -> list[dict]:
    """The passages of makeinfo's HTML ``body``, cut at its headings and at each function's
    definition (its call forms a line each, then its description), titled ``<label> <page>:
    <heading or function>``: ``page`` the first heading (``page`` itself when there is none) or,
    for a whole manual on ``one_page``, the latest heading."""
    body = re.sub(r'(?s)<span class="category">.*?</span>|<a [^>]*copiable-anchor.*?</a>', "",
                  body)
    marks = list(re.finditer(MAKEINFO_PARTS, body))
    page = next((html_line(m.group(1)) for m in marks if m.group(1)), page)
    rows = []
    for n, (here, after) in enumerate(zip(marks, [*marks[1:], None], strict=False)):
        if here.group(1):
            page = html_line(here.group(1)) if one_page else page
        # a definition keeps its call forms: the text from its list's start
        start = here.end() if here.group(1) else here.start()
        fragment = body[start:after.start() if after else None]
        heading = html_line(here.group(1) or here.group(2))
        title = f"{label} {page}" + (f": {heading}" if heading != page else "")
        rows += section_rows(doc, n, title, html_blocks(fragment))
    return rows


def octave_rows() -> list[dict]:
    rows = []
    for path in sorted(OCTAVE_DOC.glob("*.html")):
        if "Index" in path.stem or path.stem == "index":
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = raw.split("<hr>", 1)[-1].rsplit('<div class="header">', 1)[0]
        rows += makeinfo_rows(body, f"octave/{path.stem}", "Octave", path.stem)
    return rows


SBCL_MANUAL = Path("/usr/share/doc/sbcl/sbcl.html")


def sbcl_rows() -> list[dict]:
    """The SBCL manual, one HTML page: its navigation bars left out, each chapter, section and
    function definition a section (a definition titled by the section it is in)."""
    raw = SBCL_MANUAL.read_text(encoding="utf-8", errors="replace")
    body = re.sub(r'(?s)<div class="header">.*?</div>', "", raw.split("<hr>", 1)[-1])
    body = re.split(r'<div class="(?:appendix|unnumbered)" id="(?:Concept|Function|Variable|'
                    r'Type)-Index"', body)[0]
    return makeinfo_rows(body, "sbcl/manual", "SBCL", "SBCL User Manual", one_page=True)


POSTGIS_MANUAL = Path("/usr/share/doc/postgis-doc/postgis.html")
POSTGIS_SKIPPED = frozenset({"See Also", "Examples"})


def postgis_rows() -> list[dict]:
    """The PostGIS manual, one DocBook HTML page: its chapters before the reference cut at their
    headings, then each reference entry ("ST_Area — Returns the area of ...") cut at its headings
    (its examples and see-also lists left out, and what follows its last entry: the release
    notes), titled ``PostGIS ST_Area: Description``."""
    raw = POSTGIS_MANUAL.read_text(encoding="utf-8", errors="replace")
    chapters, *entries = raw.split('<div class="refentry">')
    rows = titled_rows("postgis/manual", "PostGIS", heading_sections(chapters, HTML_HEADINGS))
    for number, entry in enumerate(entries, 1):
        # an entry ends where the next chapter or an appendix (the release notes) begins
        entry = re.split(r'<div class="(?:chapter|appendix)"', entry)[0]
        name = re.search(r'(?s)<div class="refnamediv">.*?<p>(.*?)</p>', entry)
        if name is None:
            continue
        entry_name = html_line(name.group(1)).split(" \u2014 ")[0].strip()
        doc = f"postgis/{number:03d}-" + re.sub(r"\W+", "_", entry_name).strip("_")
        rows += titled_rows(doc, f"PostGIS {entry_name}", heading_sections(entry, HTML_HEADINGS),
                            skipped=POSTGIS_SKIPPED)
    return rows


GIMP_HELP = Path("/usr/share/gimp/2.0/help/en")


def gimp_rows() -> list[dict]:
    rows = []
    for path in sorted(GIMP_HELP.glob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        page = re.search(r"(?s)<title>(.*?)</title>", raw)
        if page is None or '<div class="navheader">' not in raw:
            continue
        body = raw.split('<div class="navheader">', 1)[1].split('<div class="navfooter">')[0]
        body = body.split("</div>", 1)[-1]  # after the top navigation bar
        name = html_line(page.group(1))
        rows += titled_rows(f"gimp/{path.stem}", f"GIMP {name}",
                            heading_sections(body, HTML_HEADINGS), name=name)
    return rows


LILYPOND_DOC = Path("/usr/share/doc/lilypond/html/Documentation")
LILYPOND_MANUALS = {"notation": "Notation Reference", "usage": "Usage"}


def lilypond_rows() -> list[dict]:
    rows = []
    for folder, manual in LILYPOND_MANUALS.items():
        for path in sorted((LILYPOND_DOC / folder).glob("*.html")):
            if re.search(r"\.[a-z]{2}(?:_[a-z]{2})?\.html$", path.name) or "index" in path.stem:
                continue  # a translation, the table of contents or the index
            raw = path.read_text(encoding="utf-8", errors="replace")
            parts = raw.split('<table class="nav_table">')
            if len(parts) < 3:
                continue
            body = parts[1].split("</table>", 1)[-1]
            doc = f"lilypond/{folder}/{path.stem}"
            rows += titled_rows(doc, f"LilyPond {manual}", heading_sections(body, HTML_HEADINGS))
    return rows


ZSH_DOC = Path("/usr/share/doc/zsh-common/html")


def zsh_rows() -> list[dict]:
    """The zsh manual (texi2html's HTML, a page a node): each page's text without its
    navigation tables, cut at its headings; a definition's term (a builtin with its synopsis) a
    line above its description."""
    rows = []
    for path in sorted(ZSH_DOC.glob("*.html")):
        if "Index" in path.stem or path.stem in ("index", "zsh_toc", "zsh_abt", "zsh_ovr"):
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = re.sub(r'(?s)<table class="header".*?</table>', "", raw.split("<body", 1)[-1])
        body = body.rsplit("<hr>", 1)[0]
        rows += headed_rows(f"zsh/{path.stem}", "zsh", body, path.stem)
    return rows


LIBREOFFICE_HELP = Path("/usr/share/libreoffice/help/en-US/text")
LIBREOFFICE_MODULES = {"swriter": "Writer", "scalc": "Calc", "simpress": "Impress",
                       "sdraw": "Draw", "schart": "Chart", "smath": "Math", "sbasic": "Basic",
                       "sdatabase": "Base", "shared": ""}


def libreoffice_rows() -> list[dict]:
    """LibreOffice's help pages: each page's display area (its keywords and footer left out) cut
    at its headings, titled ``LibreOffice Writer Creating Numbered or Bulleted Lists ...``."""
    rows = []
    for module, label in LIBREOFFICE_MODULES.items():
        for path in sorted((LIBREOFFICE_HELP / module).rglob("*.html")):
            raw = path.read_text(encoding="utf-8", errors="replace")
            if '<div id="DisplayArea"' not in raw:
                continue
            body = raw.split('<div id="DisplayArea"', 1)[1].split("<footer")[0]
            body = body.split(">", 1)[-1]
            sections = heading_sections(body, r"(?s)<h[1-3](?! class=\"bug\")[^>]*>(.*?)</h[1-3]>")
            page = page_heading(sections) or path.stem
            product = " ".join(filter(None, ("LibreOffice", label)))
            doc = "libreoffice/" + path.relative_to(LIBREOFFICE_HELP).with_suffix("").as_posix()
            rows += titled_rows(doc, f"{product} {page}", sections, name=page)
    return rows


POLICY_DOC = Path("/usr/share/doc/debian-policy/policy.html")


def policy_rows() -> list[dict]:
    """The Debian Policy Manual (Sphinx's HTML, a page a chapter): each page's main text cut at
    its headings, titled ``Debian Policy <chapter>: <heading>``."""
    # the upgrading checklist is a change log
    return sphinx_rows(POLICY_DOC, "policy", "Debian Policy",
                       frozenset({"genindex", "search", "index", "upgrading-checklist"}))


KICAD_DOC = Path("/usr/share/doc/kicad/help/en")


def asciidoctor_rows(paths: list[Path], doc: str, product: str) -> list[dict]:
    """Asciidoctor's HTML manuals (a page a manual): each manual's content (its table of
    contents and footer left out) cut at its headings, titled ``<title>: <heading>``, the title
    ``<product> <title>`` unless it names the product."""
    rows = []
    for path in paths:
        raw = path.read_text(encoding="utf-8", errors="replace")
        if '<div id="content">' not in raw:
            continue
        title = re.search(r"(?s)<h1>(.*?)</h1>", raw)
        manual = html_line(title.group(1)) if title else path.stem
        body = raw.split('<div id="content">', 1)[1].split('<div id="footer">')[0]
        sections = heading_sections(body, r'(?s)<h[2-5][^>]*>(.*?)</h[2-5]>')
        page = manual if manual.startswith(product) else f"{product} {manual}"
        rows += titled_rows(f"{doc}/{path.stem}", page, sections)
    return rows


def kicad_rows() -> list[dict]:
    """KiCad's manuals (Asciidoctor's HTML, a page a manual): each manual's content (its table
    of contents and footer left out) cut at its headings, titled ``KiCad <manual>: <heading>``."""
    return asciidoctor_rows(sorted(KICAD_DOC.glob("*.html")), "kicad", "KiCad")


HANDBOOK_DOC = Path("/usr/share/doc/debian-handbook/html/en-US")
HANDBOOK_SKIPPED = frozenset({"index", "foreword", "preface", "conclusion"})


def handbook_rows() -> list[dict]:
    """The Debian Administrator's Handbook (Publican's HTML, a page a section): each page's
    text without its navigation, cut at its headings, titled ``Debian Handbook <section>:
    <heading>``."""
    rows = []
    for path in sorted(HANDBOOK_DOC.glob("*.html")):
        if path.stem in HANDBOOK_SKIPPED:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = re.sub(r'(?s)<ul class="docnav.*?</ul>', "", raw.split("<body", 1)[-1])
        body = re.sub(r'(?s)<div class="toc">.*?</div>', "", body)
        rows += headed_rows(f"handbook/{path.stem}", "Debian Handbook", body, path.stem,
                            r'(?s)<h[1-4] class="title"[^>]*>(.*?)</h[1-4]>')
    return rows


SQLALCHEMY_DOC = Path("/usr/share/doc/python-sqlalchemy-doc/html")
SQLALCHEMY_SKIPPED = frozenset({"index", "search", "genindex", "glossary", "copyright",
                                "contents", "py-modindex"})


def sqlalchemy_rows() -> list[dict]:
    """SQLAlchemy's documentation (Sphinx's HTML, a page a topic): each page's main text cut at
    its headings, titled ``SQLAlchemy <page>: <heading>``; change logs left out."""
    rows = []
    for path in sorted(SQLALCHEMY_DOC.rglob("*.html")):
        relative = path.relative_to(SQLALCHEMY_DOC)
        if path.stem in SQLALCHEMY_SKIPPED or relative.parts[0] in ("changelog", "_modules"):
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if 'id="docs-body"' not in raw:
            continue
        body = raw.split('id="docs-body"', 1)[1].split(">", 1)[1]
        body = body.split('<div id="docs-bottom-navigation"')[0]
        rows += headed_rows("sqlalchemy/" + relative.with_suffix("").as_posix(), "SQLAlchemy",
                            body, path.stem)
    return rows


FFMPEG_DOC = Path("/usr/share/doc/ffmpeg/manual")
FFMPEG_SKIPPED = ("developer", "fate", "git-howto", "mailing-list-faq", "nut", "index")


def ffmpeg_rows() -> list[dict]:
    """FFmpeg's manuals (texi2any's HTML, a page a manual): each manual's text after its table
    of contents cut at its headings, titled ``<manual's title>: <heading>``."""
    rows = []
    for path in sorted(FFMPEG_DOC.glob("*.html")):
        if path.stem.endswith("-all") or path.stem.startswith("lib") \
                or path.stem in FFMPEG_SKIPPED:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        title = re.search(r"(?s)<h1[^>]*>(.*?)</h1>", raw)
        manual = html_line(title.group(1)) if title else path.stem
        body = re.sub(r'(?s)<div class="(?:contents|Contents_element)".*?</ul>\s*</div>', "",
                      raw.split("<body", 1)[-1])
        body = body.split('<div class="footer"')[0]
        body = re.sub(r'(?s)<span class="pull-right">.*?</span>', "", body)  # "# TOC" links
        sections = heading_sections(body, r'(?s)<h[2-4][^>]*>(.*?)</h[2-4]>')
        page = manual if manual.lower().startswith("ffmpeg") else f"FFmpeg {manual}"
        rows += titled_rows(f"ffmpeg/{path.stem}", page, sections,
                            skipped=frozenset({"Table of Contents"}))
    return rows


BIND_DOC = Path("/usr/share/doc/bind9-doc/arm")
BIND_SKIPPED = frozenset({"manpages", "notes", "history", "genindex", "search", "index"})


def bind_rows() -> list[dict]:
    """The BIND 9 Administrator Reference Manual (Sphinx's HTML, a page a chapter): each page's
    main text cut at its headings, titled ``BIND 9 <chapter>: <heading>``."""
    rows = []
    for path in sorted(BIND_DOC.glob("*.html")):
        if path.stem in BIND_SKIPPED:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if 'role="main"' not in raw:
            continue
        body = raw.split('role="main"', 1)[1].split(">", 1)[1].split("<footer")[0]
        rows += headed_rows(f"bind/{path.stem}", "BIND 9", body, path.stem)
    return rows


WIRESHARK_GUIDE = Path("/usr/share/doc/wireshark/wsug_html_chunked")
GNUCASH_DOC = Path("/usr/share/doc/gnucash-docs")


def docbook_chunked_rows(folder: Path, doc: str, label: str, skipped: frozenset[str] = frozenset()
                         ) -> list[dict]:
    """A DocBook manual as chunked HTML (a page a section): each page's text without its
    navigation and table of contents, cut at its headings, titled ``<label> <section>:
    <heading>``; the pages named in ``skipped`` left out."""
    rows = []
    for path in sorted(folder.glob("*.html")):
        if path.stem in skipped:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = re.sub(r'(?s)<div[^>]*class="nav(?:header|footer)"[^>]*>.*?</div>', "",
                      raw.split("<body", 1)[-1])
        body = re.sub(r'(?s)<div[^>]*class="toc"[^>]*>.*?</dl>\s*</div>', "", body)
        rows += headed_rows(f"{doc}/{path.stem}", label, body, path.stem,
                            r'(?s)<h[1-4] class="title"[^>]*>(.*?)</h[1-4]>')
    return rows


def wireshark_rows() -> list[dict]:
    """The Wireshark User's Guide, its GPL appendix left out."""
    return docbook_chunked_rows(WIRESHARK_GUIDE, "wireshark", "Wireshark",
                                frozenset({"index", "AppGPL"}))


def gnucash_rows() -> list[dict]:
    """GnuCash's Tutorial and Concepts Guide and its Help manual, in English; the licence and
    index pages left out."""
    skipped = frozenset({"index", "fdl", "gnucash-guide", "gnucash-help", "ix01"})
    return [*docbook_chunked_rows(GNUCASH_DOC / "gnucash-guide-en", "gnucash/guide",
                                  "GnuCash Guide", skipped),
            *docbook_chunked_rows(GNUCASH_DOC / "gnucash-help-en", "gnucash/help",
                                  "GnuCash Help", skipped)]


ANT_MANUAL = Path("/usr/share/doc/ant/manual")


def ant_rows() -> list[dict]:
    """Apache Ant's manual of tasks and types (hand-written HTML, a page a task or type): each
    page's text cut at its headings, titled ``Apache Ant <task>: <heading>``."""
    rows = []
    for part in ("Tasks", "Types"):
        for path in sorted((ANT_MANUAL / part).glob("*.html")):
            raw = path.read_text(encoding="utf-8", errors="replace")
            body = raw.split("<body", 1)[-1].split(">", 1)[-1]
            rows += headed_rows(f"ant/{part}/{path.stem}", "Apache Ant", body, path.stem)
    return rows


HAPROXY_MANUAL = Path("/usr/share/doc/haproxy/html/configuration.html")


def haproxy_rows() -> list[dict]:
    """HAProxy's configuration manual (one page): its text cut at its chapter and section
    headings (the section number's link read as text), titled ``HAProxy <heading>``."""
    raw = HAPROXY_MANUAL.read_text(encoding="utf-8", errors="replace")
    body = '<h1 id="chapter-1"' + raw.split('<h1 id="chapter-1"', 1)[-1]  # no contents
    sections = heading_sections(body, r'(?s)<h[1-3][^>]*>(.*?)</h[1-3]>')
    rows = []
    for n, (heading, fragment) in enumerate(sections):
        if heading:
            rows += section_rows("haproxy/configuration", n, f"HAProxy {heading}",
                                 html_blocks(fragment))
    return rows


WEECHAT_DOC = Path("/usr/share/doc/weechat-doc/html")


def weechat_rows() -> list[dict]:
    """WeeChat's English guides (Asciidoctor's HTML, a page a guide): each guide's content cut
    at its headings, titled ``WeeChat <guide>: <heading>``."""
    return asciidoctor_rows(sorted(WEECHAT_DOC.glob("weechat_*.en.html")), "weechat", "WeeChat")


MAXIMA_DOC = Path("/usr/share/doc/maxima-doc/html")


def maxima_rows() -> list[dict]:
    """The Maxima manual (makeinfo's HTML, a page a node), as ``makeinfo_rows`` reads it."""
    rows = []
    for path in sorted(MAXIMA_DOC.glob("maxima_*.html"), key=lambda p: p.stem):
        if path.stem == "maxima_singlepage":
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if "Index" in raw.split("</title>", 1)[0]:
            continue
        body = re.sub(r'(?s)<div class="header">.*?</div>', "", raw.split("<body", 1)[-1])
        rows += makeinfo_rows(body, f"maxima/{path.stem}", "Maxima", path.stem)
    return rows


EXIM_SPEC = Path("/usr/share/doc/exim4-doc-html/spec_html")


def exim_rows() -> list[dict]:
    """The Exim specification (a page a chapter): each chapter's text cut at its section
    headings, titled ``Exim <chapter>: <section>``."""
    rows = []
    for path in sorted(EXIM_SPEC.glob("ch-*.html")):
        if path.stem.endswith("_index"):
            continue  # the option, variable and concept indexes
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = raw.split('<h1 id="header">', 1)[-1].split("</h1>", 1)[-1]
        body = body.rsplit('<a class="previous_page"', 1)[0]
        rows += headed_rows(f"exim/{path.stem}", "Exim", body, path.stem,
                            r'(?s)<h[23][^>]*>(.*?)</h[23]>')
    return rows


GRASS_DOC = Path("/usr/share/doc/grass-doc/html")
GRASS_FAMILIES = ("r", "v", "i", "t", "d", "g", "r3", "db")


def grass_rows() -> list[dict]:
    """GRASS GIS's module manual (a page a module): each page's text without its table of
    contents and footer, cut at its headings, titled ``GRASS <module>: <heading>``."""
    rows = []
    for path in sorted(GRASS_DOC.glob("*.html")):
        if path.stem.split(".")[0] not in GRASS_FAMILIES or path.stem.count(".") == 0:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = raw.split("<body", 1)[-1].split(">", 1)[-1].split('<div class="footer"')[0]
        body = re.sub(r'(?s)<script.*?</script>|<div class="toc">.*?</div>', "", body)
        sections = heading_sections(body, HTML_HEADINGS)
        rows += titled_rows(f"grass/{path.stem}", f"GRASS {path.stem}", sections,
                            skipped=frozenset({"KEYWORDS", "SEE ALSO", "AUTHOR", "AUTHORS",
                                               "SOURCE CODE", "REFERENCES"}))
    return rows


DEVREF_DOC = Path("/usr/share/doc/developers-reference/docs")


def devref_rows() -> list[dict]:
    """The Debian Developer's Reference (Sphinx's HTML, a page a chapter): each page's main
    text cut at its headings, titled ``Debian Developer's Reference <chapter>: <heading>``."""
    return sphinx_rows(DEVREF_DOC, "devref", "Debian Developer's Reference",
                       frozenset({"index", "search", "genindex", "developers-reference"}))


SCIPY_REFERENCE = Path("/usr/share/doc/python-scipy-doc/html/reference")


def scipy_rows() -> list[dict]:
    """SciPy's API reference (Sphinx's HTML, a page a module or object): each page's main text
    cut at its headings, titled ``SciPy <page>: <heading>``."""
    rows = []
    for path in sorted(SCIPY_REFERENCE.rglob("*.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        if 'role="main"' not in raw:
            continue
        body = raw.split('role="main"', 1)[1].split(">", 1)[1].split("</main>")[0]
        body = body.split("<div class='prev-next-area'>")[0]
        doc = "scipy/" + path.relative_to(SCIPY_REFERENCE).with_suffix("").as_posix()
        rows += headed_rows(doc, "SciPy", body, path.stem)
    return rows


GIT_DOC = Path("/usr/share/doc/git-doc")
GIT_GUIDES = ("MyFirstContribution", "MyFirstObjectWalk", "ReviewingGuidelines",
              "SubmittingPatches", "ToolsForGit", "user-manual")


def githowto_rows() -> list[dict]:
    """Git's how-tos, contributor guides and user manual (Asciidoc's and DocBook's HTML): each
    page's content cut at its headings, titled ``Git <page>: <heading>``."""
    paths = sorted((GIT_DOC / "howto").glob("*.html")) + [GIT_DOC / f"{n}.html" for n in GIT_GUIDES]
    rows = []
    for path in paths:
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = raw.split('<div id="content">', 1)[-1].split('<div id="footer">')[0]
        body = body.split("<body", 1)[-1].split(">", 1)[-1] if body is raw else body
        body = re.sub(r'(?s)<div class="toc">.*?</dl>\s*</div>', "", body)
        title = re.search(r"(?s)<h1[^>]*>(.*?)</h1>|<title>(.*?)</title>", raw)
        page = html_line(title.group(1) or title.group(2)) if title else path.stem
        sections = heading_sections(body, r'(?s)<h[2-4][^>]*>(.*?)</h[2-4]>')
        rows += titled_rows(f"git/{path.stem}", f"Git {page}", sections)
    return rows


PYTHON_GUIDES = Path("/usr/share/doc/python3/html")


def pyguides_rows() -> list[dict]:
    """The Python tutorial, HOWTOs and FAQ (Sphinx's HTML, a page a chapter): each page's main
    text cut at its headings, titled ``Python <page>: <heading>``."""
    return [row for part in ("tutorial", "howto", "faq")
            for row in sphinx_rows(PYTHON_GUIDES / part, f"pyguides/{part}", "Python",
                                   frozenset({"index"}))]


POSTFIX_DOC = Path("/usr/share/doc/postfix/html")


def postfix_rows() -> list[dict]:
    """Postfix's README guides (hand-written HTML, a page a guide): each guide's text cut at its
    headings, titled ``Postfix <guide>: <heading>``."""
    rows = []
    for path in sorted(POSTFIX_DOC.glob("*_README.html")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        body = raw.split("<body", 1)[-1].split(">", 1)[-1]
        sections = heading_sections(body, HTML_HEADINGS)
        page = page_heading(sections) or path.stem
        label = page if page.startswith("Postfix") else f"Postfix {page}"
        rows += titled_rows(f"postfix/{path.stem}", label, sections, name=page)
    return rows


JINJA_DOC = Path("/usr/share/doc/python-jinja2-doc/html")
WERKZEUG_DOC = Path("/usr/share/doc/python-werkzeug-doc/html")
# The pages of a Sphinx project that are not its documentation.
SPHINX_SKIPPED = frozenset({"404", "changes", "genindex", "index", "search", "license",
                            "py-modindex"})


def jinja_rows() -> list[dict]:
    """Jinja's documentation (Sphinx's HTML, a page a topic), as ``sphinx_rows`` reads it."""
    return sphinx_rows(JINJA_DOC, "jinja", "Jinja", SPHINX_SKIPPED)


def werkzeug_rows() -> list[dict]:
    """Werkzeug's documentation (Sphinx's HTML, a page a topic), as ``sphinx_rows`` reads it."""
    return sphinx_rows(WERKZEUG_DOC, "werkzeug", "Werkzeug", SPHINX_SKIPPED)


LIBVIRT_DOC = Path("/usr/share/doc/libvirt-doc/html")
# The not-found page, the release notes and the download page are no prose to ask about; the
# manual pages (``manpages/``) and the generated C API reference (``html/``) are other kinds.
LIBVIRT_SKIPPED = frozenset({"404", "news", "downloads"})


def libvirt_rows() -> list[dict]:
    """libvirt's documentation: each page's ``<main>`` element (its own HTML, a page a topic)
    cut at its headings, the top-level pages and the knowledge base's."""
    rows = []
    for path in sorted([*LIBVIRT_DOC.glob("*.html"), *LIBVIRT_DOC.glob("kbase/*.html")]):
        raw = path.read_text(encoding="utf-8", errors="replace")
        main = re.search(r"(?s)<main[^>]*>(.*?)</main>", raw)
        if path.stem in LIBVIRT_SKIPPED or main is None:
            continue
        doc = "libvirt/" + path.relative_to(LIBVIRT_DOC).with_suffix("").as_posix()
        rows += headed_rows(doc, "libvirt", main.group(1), path.stem)
    return rows


RSYSLOG_DOC = Path("/usr/share/doc/rsyslog-doc/html")


def rsyslog_rows() -> list[dict]:
    """rsyslog's documentation (Sphinx's HTML, a page a topic, in folders by part), as
    ``sphinx_rows`` reads it."""
    return sphinx_rows(RSYSLOG_DOC, "rsyslog", "rsyslog", SPHINX_SKIPPED, "**/*.html")


BUILDERS = {"pydoc": pydoc_rows, "info": info_rows, "readme": readme_rows, "html": html_rows,
            "pod": pod_rows, "cmake": cmake_rows, "vim": vim_rows, "javadoc": javadoc_rows,
            "rustc": rustc_rows, "pyref": pyref_rows, "awscli": awscli_rows,
            "npm": npm_rows, "rustbook": rustbook_rows, "pandas": pandas_rows,
            "edition": edition_rows, "cargo": cargo_rows, "rustdoc": rustdoc_rows,
            "gsutil": gsutil_rows, "kubectl": kubectl_rows, "rustref": rustref_rows,
            "rustcbook": rustcbook_rows, "nodejs": nodejs_rows,
            "pgsql": pgsql_rows, "pylibs": pylibs_rows,
            "perldiag": perldiag_rows, "apache": apache_rows,
            "sqlite": sqlite_rows, "golang": golang_rows, "ruby": ruby_rows,
            "rhelp": rhelp_rows, "gnuplot": gnuplot_rows,
            "prolog": prolog_rows, "erlang": erlang_rows,
            "racket": racket_rows, "gtkdoc": gtkdoc_rows, "ocaml": ocaml_rows,
            "haskell": haskell_rows, "tcl": tcl_rows, "sdl": sdl_rows,
            "cppreference": cppreference_rows, "ada": ada_rows, "qt": qt_rows,
            "llvm": llvm_rows, "django": django_rows, "octave": octave_rows,
            "gimp": gimp_rows, "lilypond": lilypond_rows, "sbcl": sbcl_rows,
            "postgis": postgis_rows, "zsh": zsh_rows, "libreoffice": libreoffice_rows,
            "policy": policy_rows, "kicad": kicad_rows, "handbook": handbook_rows,
            "sqlalchemy": sqlalchemy_rows, "ffmpeg": ffmpeg_rows, "bind": bind_rows,
            "wireshark": wireshark_rows, "ant": ant_rows, "haproxy": haproxy_rows,
            "weechat": weechat_rows, "gnucash": gnucash_rows, "maxima": maxima_rows,
            "exim": exim_rows, "grass": grass_rows, "devref": devref_rows,
            "scipy": scipy_rows, "githowto": githowto_rows,
            "pyguides": pyguides_rows, "postfix": postfix_rows, "jinja": jinja_rows,
            "werkzeug": werkzeug_rows, "libvirt": libvirt_rows, "rsyslog": rsyslog_rows}


def build(name: str) -> Path:
    rows = BUILDERS[name]()
    out = ROOT / "_data" / name
    out.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (out / "chunks.jsonl").write_text(data, encoding="utf-8")
    print(f"{name}: {len(rows)} passages, sha256 {hashlib.sha256(data.encode()).hexdigest()[:12]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=sorted(BUILDERS))
    build(parser.parse_args().corpus)


if __name__ == "__main__":
    main()
