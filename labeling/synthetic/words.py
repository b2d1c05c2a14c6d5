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
    "room building site desk repository inbox queue website intranet hris handbook form".split()
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
