"""The English word lists the question generator and the rubric read (lower case).

Kept in one place so that the rubric judges a question with the same notion of a question word,
an auxiliary or a dangling word as the generator that wrote it.
"""

from __future__ import annotations

QUESTION_WORDS = frozenset("what which who whom whose when where why how".split())
AUXILIARIES = frozenset(
    "is are was were am do does did can could should would will shall may might must has have "
    "had".split()
)
BE = frozenset({"is", "are", "was", "were"})
MODALS = frozenset({"can", "could", "may", "might", "must", "shall", "should", "will", "would"})
PREPOSITIONS = frozenset(
    "about above across after against along among around at before behind below beside between "
    "by during for from in inside into near of off on onto out over per since through "
    "throughout till to toward towards under until up upon via with within without".split()
)
DETERMINERS = frozenset("a an the this that these those your our their its his her my any each "
                        "every some no all".split())
CONJUNCTIONS = frozenset("and or but nor so yet plus than as".split())
# A question may not end on one of these (a dangling fragment).
DANGLING = DETERMINERS | CONJUNCTIONS | frozenset(
    "of with to from into by at in on that which who whose such very not if when".split()
)
# Pronouns that leave a question without its referent ("What does it add?").
VAGUE = frozenset("it they them he she him these those".split())
STRANDABLE = frozenset({"for", "to", "on", "with", "from", "about", "in", "into", "at", "by"})
LEAD_WORDS = frozenset(
    "after before during within once for in on at from until by since while between over".split()
)
CONDITIONS = frozenset({"if", "when", "unless", "whenever", "once"})
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100, "half": 0.5,
}
DURATION_UNITS = frozenset(
    "second seconds minute minutes hour hours day days week weeks month months year years "
    "working business calendar".split()
)
CURRENCIES = frozenset("eur gbp usd chf sek nok dkk pln jpy cad aud € $ £ euro euros dollars "
                       "pounds".split())
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday weekday weekdays "
                     "weekend weekends".split())
QUANTIFIERS = ("up to", "at least", "at most", "more than", "less than", "fewer than", "over",
               "about", "around", "under", "approximately", "no more than", "a maximum of",
               "a minimum of")
ROLES = frozenset(
    "manager managers director directors team teams lead leads buddy buddies finance it hr ops "
    "people owner owners admin admins administrator administrators colleague colleagues "
    "committee board officer officers reviewer reviewers approver approvers engineer engineers "
    "support desk helpdesk security legal payroll recruiter recruiters ceo cto cfo "
    "coordinator coordinators".split()
)
PLACE_NOUNS = frozenset(
    "office offices lab labs tool portal channel folder system page app drive wiki calendar "
    "room building site desk repository inbox queue website intranet hris handbook form section "
    "directory menu tab field table dialog window panel screen file".split()
)
# Common verbs in policy, product and procedure text (base forms); -s forms are derived.
VERBS = frozenset(
    """accept access add agree allow apply approve arrive ask assign attend become begin block
    book buy call cancel carry change charge check choose claim close collect come confirm
    connect contact continue contribute cost count cover create decide define delete deliver
    depend describe detect disable email enable end enroll enrol ensure enter escalate expire
    explain fall file fill find finish fix follow get give go grant handle happen help hold
    include increase introduce invite issue join keep last lead leave limit list log lose make
    manage mean meet move need notify offer open order own pass pause pay plan post prepare
    protect provide publish reach read receive record reduce register reimburse reject release
    remain remove renew replace report request require reset respond restart restore return
    review roll rotate run save schedule see select sell send set share ship show sign start
    stay stop store submit support take tell track train transfer try turn update upgrade use
    verify wait want work write let""".split()
)
IRREGULAR_S = {"has": "have", "does": "do", "goes": "go", "is": "be", "are": "be"}
SUBJECT_STOPS = frozenset(
    "that who which and or but when if only to where while because than".split()
)
PRONOUNS_SUBJECT = {"you": "I", "we": "we"}
PRONOUNS_OTHER = {"you": "me", "your": "my", "yours": "mine", "yourself": "myself"}
# Prepositions that introduce a time ("by 5 May", "within 3 days").
TIME_PREPS = frozenset("at on in by from before after until between during within".split())
# Verbs of reference documentation (commands, functions, configuration), base forms; with VERBS
# they are what ``base_form`` recognises.
TECH_VERBS = frozenset(
    """abort activate adapt adjust allocate alter analyze analyse append archive assume attach
    authenticate authorize backup bind boot break bypass cache calculate capture cause clean
    clear clone commit compare compile complete compress compute concatenate configure consist
    contain control convert copy correspond crash decode decompress decrease decrypt default
    defer delay deliver deny deploy destroy determine differ disconnect discard display
    distribute download drop dump edit emit emulate encode encrypt ensure evaluate examine
    exceed exclude execute exist exit expand export expose extend extract fail fetch filter
    flush force fork format forward free generate grow guarantee halt hide identify ignore
    implement import indicate inherit initialize initialise insert inspect install interpret
    interrupt invoke iterate kill launch link listen load locate lock look map mark match
    measure merge migrate mirror modify monitor mount need negotiate obtain omit operate
    optimize output overwrite override parse patch perform permit place poll populate power
    precede prefer prefix preserve prevent print probe process produce prompt propagate
    push query queue quit raise rebuild recognize recognise recover redirect refer refresh
    refuse reload rename render reorder repair repeat represent resize resolve retrieve retry
    reuse revert revoke rewrite scan search seek separate serve signal skip sleep sort spawn
    specify split suppress suspend swap switch sync synchronize tag terminate test toggle trace
    transform translate trigger truncate undo uninstall unlink unload unlock unmount unpack
    unset upload validate wake warn watch wrap yield""".split()
)
# Subjects that point back at something the sentence does not name ("This option", "It", "The
# function"): the generator replaces them with the passage's subject or drops the sentence.
DEICTIC_HEADS = frozenset(
    "it this that these those they such".split()
)
GENERIC_NOUNS = frozenset(
    """function functions command commands program programs utility utilities tool tools option
    options flag flags argument arguments parameter parameters call calls method methods value
    values version versions file files page manual library module macro routine daemon service
    interface field entry variable setting helper script operation feature mode object class
    structure request call""".split()
)
ALL_VERBS = VERBS | TECH_VERBS
