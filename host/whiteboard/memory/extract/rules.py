"""The offline rule extractor's patterns: first-person statements of lasting facts, in
English, Chinese, Japanese and Korean.

Each rule: (type, pattern on a cleaned sentence, how the fact is written, confidence,
tag). `{v}` in the template is the pattern's `verb` group in the third person, `{x}` the
rest. Sentences are lowercased for matching only; the fact keeps the user's casing.
"""

from __future__ import annotations

import re

ROLE_WORDS = re.compile(
    r"\b(?:engineer|developer|dev|programmer|designer|scientist|researcher|analyst|architect|consultant|"
    r"teacher|professor|lecturer|student|doctor|nurse|physician|lawyer|writer|author|journalist|editor|"
    r"manager|founder|ceo|cto|marketer|accountant|artist|musician|photographer|translator|admin|"
    r"administrator|technician|mechanic|chef|entrepreneur|freelancer|product owner|pm)s?\b")
CJK_ROLE_WORDS = re.compile(
    r"(?:工程师|开发者|开发人员|程序员|设计师|老师|教师|学生|医生|护士|研究员|经理|律师|作家|产品经理|创始人"  # zh
    r"|エンジニア|開発者|プログラマー?|デザイナー|先生|医者|医師|看護師|研究者|弁護士|マネージャー"  # ja
    r"|개발자|엔지니어|프로그래머|디자이너|학생|선생님|교사|의사|간호사|연구원|변호사|작가|매니저)")  # ko

_JA_I = r"(?:(?:私|僕|俺|わたし)は)"
# Possessive: spaces the subject gave back to `.+` were a quadratic search on a run of spaces.
_KO_I = r"(?:(?:저는|나는|제가|내가)\s*+)"

_S = r"(?:really |generally |usually |strongly |much |definitely |also |mostly |actually |totally |absolutely )?"

# (type, regex, template, confidence, tag)
EN_RULES: list[tuple[str, str, str, float, str]] = [
    ("preference", rf"^i {_S}(?P<verb>prefer) (?P<x>.+)", "{v} {x}", 0.85, "preference"),
    ("preference", rf"^i {_S}(?:do not|don't|dont|never) (?:like|enjoy|want|use) (?P<x>.+)", "Dislikes {x}", 0.75,
     "dislike"),
    ("preference", rf"^i {_S}(?:hate|dislike|can't stand|cannot stand|avoid) (?P<x>.+)", "Dislikes {x}", 0.75,
     "dislike"),
    ("preference", rf"^i {_S}(?P<verb>like|love|enjoy|adore) (?P<x>.+)", "{v} {x}", 0.75, "likes"),
    ("preference", r"^i(?:'d| would) (?:much )?rather (?P<x>.+)", "Would rather {x}", 0.7, "preference"),
    ("preference", r"^my (?:favou?rite|preferred) (?P<x>.+? (?:is|are) .+)", "Favorite {x}", 0.85, "favorite"),
    ("preference", r"^i (?P<adv>always|usually|mostly|normally) (?P<verb>\w+) (?P<x>.+)", "{adv} {v} {x}", 0.7,
     "habit"),
    ("preference", r"^i tend to (?P<verb>\w+) (?P<x>.+)", "Tends to {verb} {x}", 0.7, "habit"),
    ("skill", r"^i(?:'m| am) (?P<x>(?:good|great|experienced|proficient|fluent|skilled|an expert|expert|"
              r"comfortable) (?:at|in|with) .+)", "Is {x}", 0.85, "expertise"),
    ("skill", r"^i work as (?P<x>.+)", "Works as {x}", 0.85, "work"),
    ("skill", r"^i(?:'ve| have) been (?P<x>(?:coding|programming|developing|working|writing|designing|teaching|"
              r"using) .+ for .+)", "Has been {x}", 0.85, "experience"),
    ("skill", r"^i (?P<verb>speak|code in|program in|develop in) (?P<x>.+)", "{v} {x}", 0.8, "language"),
    ("skill", r"^i (?:mainly |mostly |usually |daily )?(?P<verb>use|work with|develop with|build with) "
              r"(?P<x>.+)", "{v} {x}", 0.75, "tools"),
    ("skill", r"^i know (?!that |what |how |why |it |you |this |if |when |where )(?P<x>.+)", "Knows {x}", 0.7,
     "knowledge"),
    ("objective", r"^i(?:'m| am) (?:currently |now )?(?P<x>(?:learning|studying) .+)", "{x}", 0.8, "learning"),
    ("objective", r"^i(?:'m| am) (?:currently |now )?(?P<x>(?:building|developing|working on|creating|designing|"
                  r"preparing for|training for|saving for|launching|starting|writing (?:a|an|my) (?:book|novel|thesis|"
                  r"dissertation|blog|paper|app|game|library)) .+)", "{x}", 0.8, "project"),
    ("objective", r"^my (?P<what>goal|aim|plan|objective|dream) (?:for .+ )?is (?:to )?(?P<x>.+)", "Goal: {x}", 0.9,
     "goal"),
    ("objective", r"^i (?:want|hope|plan|intend|aim|am trying|'m trying|would like|'d like) to (?P<x>(?:learn|become|"
                  r"build|start|launch|move|finish|improve|master|switch|run|grow|lose|save|travel|visit|get better"
                  r"|get into|pass|graduate|retire|write a book|publish) .+)", "Wants to {x}", 0.75, "goal"),
    ("context", r"^i (?P<verb>live) in (?P<x>.+)", "Lives in {x}", 0.9, "location"),
    ("context", r"^i(?:'m| am) (?P<x>(?:from|based in|located in|living in) .+)", "Is {x}", 0.9, "location"),
    ("context", r"^i work (?P<x>(?:at|for|in) .+)", "Works {x}", 0.85, "work"),
    ("context", r"^my name is (?P<x>.+)", "Name is {x}", 0.9, "name"),
    ("context", r"^i(?:'m| am) (?P<x>\d{1,3}) (?:years old|yo)\b", "Is {x} years old", 0.85, "age"),
    ("context", r"^i have (?P<x>(?:a |an |one |two |three |four |\d+ )?(?:kids?|children|sons?|daughters?|wife|"
                r"husband|partner|boyfriend|girlfriend|dogs?|cats?|pets?|twins|baby|babies|grandchildren)\b.*)",
     "Has {x}", 0.8, "family"),
    ("context", r"^my (?P<x>(?:wife|husband|partner|son|daughter|kids?|children|dog|cat|mother|father|mom|dad|"
                r"brother|sister|boss|team|company|startup)(?:'s name)? (?:is|are|works|lives) .+)", "{X}", 0.8,
     "people"),
    ("context", r"^i(?:'m| am) (?P<x>(?:allergic to|vegetarian|vegan|married|single|divorced|retired|pregnant|"
                r"left-handed|colou?r ?blind|a parent|a mother|a father|a mom|a dad|diabetic|lactose intolerant|"
                r"gluten intolerant)\b.*)", "Is {x}", 0.85, "personal"),
    ("skill", r"^i(?:'m| am) (?P<x>(?:a|an) .+)", "Is {x}", 0.7, "identity"),
]

CJK_RULES: list[tuple[str, str, str, float, str]] = [
    ("preference", r"^我(?:很|非常|比较|更|也)?(?P<x>(?:喜欢|爱|偏好|习惯|倾向于).+)", "{x}", 0.8, "preference"),
    ("preference", r"^我(?:很|也)?(?P<x>(?:不喜欢|讨厌|不爱).+)", "{x}", 0.8, "dislike"),
    ("skill", r"^我(?P<x>(?:会|擅长|精通|熟悉|懂).+)", "{x}", 0.8, "expertise"),
    ("objective", r"^我(?:现在|目前|正)?(?:在)?(?P<x>(?:学习|学|备考|准备).+)", "{x}", 0.8, "learning"),
    ("objective", r"^我(?:现在|目前)?(?:正在|在)(?P<x>(?:做|开发|写|构建|搭建|创业).+)", "{x}", 0.75, "project"),
    ("objective", r"^我的(?P<x>(?:目标|梦想|计划)是.+)", "{x}", 0.9, "goal"),
    ("objective", r"^我(?P<x>(?:想要?|打算|计划|希望)(?:学|成为|做|开|搬|去|考|转|提高|减肥|存钱).+)", "{x}", 0.7,
     "goal"),
    ("context", r"^我(?P<x>(?:住在|来自|生活在).+)", "{x}", 0.9, "location"),
    ("context", r"^我(?P<x>在.+(?:工作|上班|上学))", "{x}", 0.85, "work"),
    ("context", r"^我(?P<x>有(?:一个|两个|三个|一只|两只)?(?:孩子|女儿|儿子|老婆|老公|妻子|丈夫|狗|猫|宠物).*)", "{x}",
     0.8, "family"),
    ("context", r"^我是(?:一名|一个|一位)?(?P<x>.+)", "是{x}", 0.75, "identity"),
    # Japanese: the subject (私は) is often left out.
    ("preference", rf"^{_JA_I}?(?P<x>.+が(?:大好き|好き|苦手|嫌い))", "{x}", 0.8, "preference"),
    ("context", rf"^{_JA_I}?(?P<x>.+に住んでいます)", "{x}", 0.9, "location"),
    ("context", rf"^{_JA_I}?(?P<x>.+(?:で|として)働いています)", "{x}", 0.85, "work"),
    ("objective", rf"^{_JA_I}?(?P<x>.+を(?:勉強|学ん)でいます|.+を勉強しています)", "{x}", 0.8, "learning"),
    ("skill", rf"^{_JA_I}?(?P<x>.+が得意(?:です)?)", "{x}", 0.8, "expertise"),
    ("skill", rf"^{_JA_I}?(?P<x>(?:いつも|普段|主に)?.+を使っています)", "{x}", 0.75, "tools"),
    ("objective", r"^(?:私|僕|俺|わたし)の(?P<x>(?:目標|夢)は.+)", "{x}", 0.9, "goal"),
    ("context", rf"^{_JA_I}(?P<x>.+(?:です|だ))$", "{x}", 0.75, "identity"),
    # Korean: 저는 / 나는 (I), polite or plain endings.
    ("preference", rf"^{_KO_I}?(?P<x>.+(?:을|를)\s*좋아(?:해요|합니다|해))", "{x}", 0.8, "preference"),
    ("preference", rf"^{_KO_I}?(?P<x>.+(?:을|를)\s*싫어(?:해요|합니다|해))", "{x}", 0.8, "dislike"),
    ("context", rf"^{_KO_I}?(?P<x>.+에\s*(?:살아요|살고 있어요|살고 있습니다|삽니다))", "{x}", 0.9, "location"),
    ("objective", rf"^{_KO_I}?(?P<x>.+(?:을|를)\s*(?:배우고|공부하고) 있(?:어요|습니다))", "{x}", 0.8, "learning"),
    ("context", rf"^{_KO_I}?(?P<x>.+에서\s*일(?:해요|합니다|하고 있어요|하고 있습니다))", "{x}", 0.85, "work"),
    ("objective", r"^(?:제|내)\s*(?P<x>(?:목표|꿈)는\s*.+)", "{x}", 0.9, "goal"),
    ("context", rf"^{_KO_I}(?P<x>.+(?:입니다|이에요|예요))$", "{x}", 0.75, "identity"),
]

EN_COMPILED = [(t, re.compile(p), tpl, c, tag) for t, p, tpl, c, tag in EN_RULES]
CJK_COMPILED = [(t, re.compile(p), tpl, c, tag) for t, p, tpl, c, tag in CJK_RULES]

# A sentence asking for something now, not telling a lasting fact.
REQUEST = re.compile(
    r"^(?:please|pls|can you|could you|would you|will you|help|write|make|create|give|show|tell|explain|"
    r"translate|summari[sz]e|fix|check|list|draft|generate|find|rewrite|convert|add|remove|what|how|why|when|"
    r"where|which|who|is it|are there|do you|does|should)\b"
    r"|\bi (?:want|need|would like|'d like) you to\b|\bi need (?:a|an|some|the|to|help)\b"
    r"|\bi(?: would|'d) like (?:a|an|some|the|it|this|that)\b"
    r"|\bi want (?:a|an|some|the|it|this|that)\b|\blet me know\b")
# How a question ends, in the languages of the rules (Chinese 吗/呢, Japanese か, Korean 까).
QUESTION_END = ("?", "？", "吗", "呢", "か", "까")
# "Always"/"from now on": a request that stands for every later chat is a preference.
STANDING = re.compile(r"\b(?:always|never|from now on|in future|every time|whenever)\b"
                      r"|以后|总是|一直|每次|いつも|常に|今後|항상|앞으로|언제나")
# Asking for something now, in the other languages of the labelled set (REQUEST: English).
REQUEST_OTHER = re.compile(
    r"^(?:écris|ecris|traduis|corrige|fais-moi|donne-moi|explique|peux-tu|pourrais-tu|pouvez-vous|aide-moi"
    r"|escribe|escríbeme|traduce|corrige|dame|hazme|explica|explícame|puedes|podrías|ayúdame"
    r"|schreib|schreibe|übersetze|korrigiere|gib mir|mach|erstelle|erkläre|kannst du|könntest du|hilf mir"
    r"|escreva|traduza|corrija|me dê|faça|explique|pode|poderia|me ajude)\b"
    r"|\b(?:je voudrais|j'aimerais|il me faut|j'ai besoin d'|quisiera|necesito|quiero|me gustaría"
    r"|ich brauche|ich hätte gern|ich möchte|preciso de|quero|gostaria de) (?:un|une|des|le|la|les|una|unos|unas|el|los"
    r"|las|que|ein|eine|einen|einem|dass|um|uma|uns|umas|o|a|os|as)\b"
    r"|^(?:请|帮我|给我|麻烦)|(?:ください|下さい|お願い|주세요|해 줘|해줘|줄래)")
# A supposition, in every language of the labelled set: nothing it says is a fact.
HYPOTHETICAL = re.compile(
    r"^\s*(?:if|suppose|supposing|imagine|pretend|let's say|lets say|what if|assuming|si|imaginons|supposons|"
    r"supongamos|imagina|imagine|suponha|se (?:eu|você|voce|nós|a gente)|wenn|angenommen|falls|stell dir vor)\b"
    r"|^\s*(?:假如|如果|假设|要是|もし|仮に|만약|만일)", re.IGNORECASE)
# The sentence's subject is someone else ("My sister is learning Korean", 母は京都に住んでいます):
# often about the user's life too ("My husband is a firefighter"), so it is not dropped but
# made less sure, to wait for the user as a suggestion.
_KIN_EN = (r"friend|sister|brother|mom|mum|mother|dad|father|boss|manager|coworker|co-worker|colleague|client|wife|"
           r"husband|partner|son|daughter|kids?|children|parents|grandma|grandmother|grandpa|grandfather|aunt|uncle|"
           r"cousin|neighbou?r|roommate|girlfriend|boyfriend|team")
SOMEONE_ELSE = re.compile(
    rf"^\s*(?:(?:my|our|his|her|their) (?:best |older |younger |little |big )?(?:{_KIN_EN})\b"
    r"|(?:he|she|they)\b"
    r"|(?:mon|ma|mes|notre|nos) (?:ami|amie|amis|frère|sœur|mère|père|patron|patronne|chef|collègue|fils|fille|"
    r"enfants|femme|mari|copain|copine|voisin|voisine|parents)\b"
    r"|(?:mi|mis|nuestro|nuestra) (?:amigo|amiga|hermano|hermana|madre|padre|mamá|papá|jefe|jefa|compañero|compañera|"
    r"hijo|hija|hijos|esposa|esposo|marido|mujer|novio|novia|vecino|vecina|padres)\b"
    r"|(?:meu|minha|meus|minhas|nosso|nossa) (?:amigo|amiga|irmão|irmã|mãe|pai|chefe|colega|filho|filha|filhos|esposa|"
    r"marido|namorado|namorada|vizinho|vizinha|pais)\b"
    r"|(?:mein|meine|unser|unsere) (?:freund|freundin|bruder|schwester|mutter|vater|chef|chefin|kollege|kollegin|sohn|"
    r"tochter|kinder|frau|mann|partner|partnerin|nachbar|nachbarin|eltern)\b"
    r"|我(?:的)?(?:妈妈|母亲|爸爸|父亲|老板|同事|朋友|老公|老婆|丈夫|妻子|妹妹|姐姐|哥哥|弟弟|儿子|女儿|孩子|男朋友|女朋友|室友)"
    r"|(?:夫|妻|母|父|兄|姉|弟|妹|同僚|上司|友達|友人|息子|娘|彼|彼女|主人)(?:は|が)"
    r"|(?:엄마|어머니|아빠|아버지|남편|아내|동료|친구|형|누나|언니|오빠|동생|아들|딸|상사|남자친구|여자친구)(?:는|은|가|이)\s)",
    re.IGNORECASE)
# Pointing at the conversation or at a moment: about this exchange, not about the user.
ONE_OFF = re.compile(
    r"\b(?:this|that|these|those|your|the) (?:code|answer|reply|response|text|email|e-mail|message|one|error|bug|"
    r"article|essay|file|function|page|version|output|example|list|table|script|snippet|paragraph|draft|idea|"
    r"suggestion|solution|explanation|image|picture|link)s?\b"
    r"|\b(?:the )?(?:above|below|following)\b|\b(?:today|tonight|tomorrow|yesterday|right now|just now|for now|"
    r"this time|at the moment|this morning|this afternoon|this evening|this week)\b")
# A fact about the assistant or the thing just shown is no fact about the user.
DEICTIC_OBJECT = re.compile(r"^(?:it|its|that|this|these|those|them|him|her)\b|\b(?:you|your|yours)\b")
CJK_ONE_OFF = re.compile(r"(?:你|您|这个|那个|这段|上面|下面|今天|明天|昨天|刚才|现在就|帮我|请"
                        r"|これ|それ|あれ|この|その|あの|あなた|今日|明日|昨日|さっき|ください|お願い"
                        r"|이거|이것|그거|그것|당신|오늘|내일|어제|방금|주세요|이 |그 )")
HEDGE = re.compile(r"\b(?:maybe|probably|perhaps|i think|i guess|i suppose|sometimes|kind of|sort of|might)\b")
LEAD_IN = re.compile(r"^(?:(?:also|and|but|so|well|oh|ok|okay|actually|btw|by the way|honestly|basically|"
                     r"anyway|fyi|personally|generally|in general|for context|as you know|i think|i guess|"
                     r"i believe|i suppose)(?: that)?[,:]?\s+)+", re.IGNORECASE)
# "Remember that I ...": the user asks for exactly this to be kept.
REMEMBER = re.compile(r"^(?:please |pls )?(?:remember|note|keep in mind|don't forget|do not forget|for the record)"
                      r"(?: that)?[,:]?\s+", re.IGNORECASE)
# (?<!\s): a run of spaces is tried from its start only (from each of its spaces it was quadratic).
CLAUSE_END = re.compile(r"(?<!\s)\s+(?:but|because|since|although|though|so that|which is why|and i want you)\s+|[;:(]")
