"""Request -> fact data for the meaning adapter, the context gate and recall's floors, written
by the Whiteboard developers for this repository (MIT, like it): no text here comes from
another data set (LoCoMo, CC BY-NC, is a benchmark only).

Per life domain: facts a user may have told us (a user holds one or more of them), requests
that need whichever of them the user holds (sharing no content word with them where we could
manage it), in the eight languages the extractor reads; and third-person sentences about
named other people on the same subject, the shape a benchmark's or a diary-like vault's
distractors take. Pairs are made by code (`pairs`): every request of a domain with every fact
of it, within a language and across it and English. `WORLD` holds requests about the world that
must carry no fact. `split` holds out whole domains and, in the rest, the last request of each
language, so that held-out requests are of phrasings never trained on (docs/memory.md,
"Data sheet").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

LANGUAGES = ("en", "de", "es", "fr", "pt", "ja", "zh", "ko")
NAMES = ("Priya", "Tomás", "Ingrid", "Kenji", "Amara", "Lukas", "Sofia", "Mateo", "Hana", "Olu", "Nadia", "Felix")


@dataclass(frozen=True)
class Domain:
    name: str
    facts: dict[str, tuple[str, ...]]
    requests: dict[str, tuple[str, ...]]
    others: tuple[str, ...]  # about {n}, a named other person


def _d(name: str, facts: dict, requests: dict, others: tuple[str, ...]) -> Domain:
    return Domain(name, {k: tuple(v) for k, v in facts.items()}, {k: tuple(v) for k, v in requests.items()}, others)


DOMAINS = (
    _d(
        "diet",
        {
            "en": ["Is vegetarian", "Allergic to peanuts", "Is lactose intolerant", "Pregnant, due in March"],
            "de": ["Ist Vegetarier", "Hat eine Erdnussallergie"],
            "es": ["Es vegetariana", "Es alérgico al marisco"],
            "fr": ["Est végétarien", "Ne digère pas le gluten"],
            "pt": ["É vegana", "Tem alergia a amendoim"],
            "ja": ["ベジタリアンです", "ナッツアレルギーがある"],
            "zh": ["吃素", "对花生过敏"],
            "ko": ["채식주의자예요", "땅콩 알레르기가 있어요"],
        },
        {
            "en": [
                "What should I order at the sushi place tonight?",
                "Give me a recipe for a quick weeknight dinner",
                "Which snacks can I bring to the office party?",
                "Plan my meals for next week",
            ],
            "de": ["Was soll ich heute Abend kochen?", "Welches Restaurant passt für mein Abendessen?"],
            "es": ["¿Qué puedo cenar esta noche?", "Recomiéndame un restaurante para el sábado"],
            "fr": ["Que puis-je cuisiner ce soir ?", "Propose-moi un menu pour la semaine"],
            "pt": ["O que posso jantar hoje?", "Sugira um lanche para a viagem"],
            "ja": ["今夜の夕食は何を作ればいい?", "パーティーに持っていくお菓子を選んで"],
            "zh": ["今晚做什么菜好?", "帮我安排下周的饭菜"],
            "ko": ["오늘 저녁 뭐 만들까요?", "회식 메뉴 좀 골라 줘"],
        },
        ("{n} tried a new vegan bakery downtown last weekend", "{n} found out she cannot eat shellfish"),
    ),
    _d(
        "health",
        {
            "en": ["Has type 1 diabetes", "Has asthma", "Has a bad knee from an old injury", "Takes blood thinners"],
            "de": ["Hat Diabetes", "Hat Asthma"],
            "es": ["Tiene diabetes", "Tiene asma"],
            "fr": ["A du diabète", "Souffre d'asthme"],
            "pt": ["Tem diabetes", "Tem asma"],
            "ja": ["糖尿病がある", "喘息持ちです"],
            "zh": ["有糖尿病", "有哮喘"],
            "ko": ["당뇨가 있어요", "천식이 있어요"],
        },
        {
            "en": [
                "Is this dessert safe for me to eat?",
                "Can I join a high-altitude trek next month?",
                "Which painkiller can I take for a headache?",
                "What exercise is fine for me?",
            ],
            "de": ["Darf ich diesen Kuchen essen?", "Welche Sportart ist gut für mich?"],
            "es": ["¿Puedo comer este postre?", "¿Qué deporte me conviene?"],
            "fr": ["Puis-je manger ce dessert ?", "Quel sport me conviendrait ?"],
            "pt": ["Posso comer esta sobremesa?", "Que esporte é bom para mim?"],
            "ja": ["このデザートは食べても大丈夫?", "私に合う運動は?"],
            "zh": ["这个甜点我能吃吗?", "我适合做什么运动?"],
            "ko": ["이 디저트 먹어도 될까요?", "저한테 맞는 운동이 뭘까요?"],
        },
        ("{n} was told by her doctor to watch her blood sugar", "{n} had knee surgery in the spring"),
    ),
    _d(
        "fitness",
        {
            "en": [
                "Runs marathons",
                "Goes to the gym four times a week",
                "Swims every morning",
                "Practises yoga daily",
            ],
            "de": ["Läuft Marathon", "Schwimmt jeden Morgen"],
            "es": ["Corre maratones", "Hace yoga a diario"],
            "fr": ["Court des marathons", "Nage tous les matins"],
            "pt": ["Corre maratonas", "Faz musculação"],
            "ja": ["マラソンを走る", "毎朝泳いでいる"],
            "zh": ["跑马拉松", "每天早上游泳"],
            "ko": ["마라톤을 뛰어요", "매일 아침 수영해요"],
        },
        {
            "en": [
                "Plan my training for the next three months",
                "Which shoes should I buy?",
                "How should I warm up tomorrow?",
                "What should I eat before a big session?",
            ],
            "de": ["Erstelle mir einen Trainingsplan", "Welche Schuhe soll ich kaufen?"],
            "es": ["Hazme un plan de entrenamiento", "¿Qué zapatillas me compro?"],
            "fr": ["Fais-moi un plan d'entraînement", "Quelles chaussures acheter ?"],
            "pt": ["Monte um plano de treino para mim", "Que tênis devo comprar?"],
            "ja": ["トレーニング計画を立てて", "どの靴を買えばいい?"],
            "zh": ["帮我制定训练计划", "我该买什么鞋?"],
            "ko": ["훈련 계획 좀 짜 줘", "어떤 신발을 사야 할까요?"],
        },
        ("{n} ran her first half marathon in October", "{n} joined a climbing gym with her brother"),
    ),
    _d(
        "work",
        {
            "en": [
                "Works as a nurse on night shifts",
                "Is a high-school maths teacher",
                "Works as an accountant",
                "Runs a small bakery",
            ],
            "de": ["Arbeitet als Krankenpfleger", "Ist Lehrerin"],
            "es": ["Trabaja de enfermera", "Es profesor"],
            "fr": ["Travaille comme infirmière", "Est professeur de lycée"],
            "pt": ["Trabalha como enfermeira", "É professor"],
            "ja": ["看護師として働いている", "高校の教師です"],
            "zh": ["是护士", "是中学老师"],
            "ko": ["간호사로 일해요", "고등학교 교사예요"],
        },
        {
            "en": [
                "Help me write my cover letter",
                "How do I ask my boss for a raise?",
                "Draft an email to my colleagues about the holidays",
                "What should I put on my CV?",
            ],
            "de": ["Hilf mir bei meiner Bewerbung", "Wie frage ich nach einer Gehaltserhöhung?"],
            "es": ["Ayúdame con mi carta de presentación", "¿Cómo pido un aumento?"],
            "fr": ["Aide-moi à écrire ma lettre de motivation", "Comment demander une augmentation ?"],
            "pt": ["Me ajude com minha carta de apresentação", "Como peço um aumento?"],
            "ja": ["履歴書を書くのを手伝って", "昇給をどう頼めばいい?"],
            "zh": ["帮我写求职信", "怎么跟老板提加薪?"],
            "ko": ["자기소개서 쓰는 것 좀 도와줘", "연봉 인상을 어떻게 요청하죠?"],
        },
        ("{n} started a new job at a hospital last month", "{n} got promoted to head chef"),
    ),
    _d(
        "tech",
        {
            "en": [
                "Prefers TypeScript over JavaScript",
                "Writes backend services in Go",
                "Uses Neovim",
                "Deploys with Kubernetes",
            ],
            "de": ["Programmiert in Python", "Nutzt Rust für Backends"],
            "es": ["Programa en Python", "Usa Rust"],
            "fr": ["Code en Python", "Utilise Rust au travail"],
            "pt": ["Programa em Python", "Usa Rust"],
            "ja": ["Pythonでプログラムを書く", "Rustを使っている"],
            "zh": ["用Python编程", "用Rust写后端"],
            "ko": ["파이썬으로 개발해요", "러스트를 써요"],
        },
        {
            "en": [
                "Which language should I pick for my web app?",
                "Set up a linter config for my project",
                "How do I structure a new API?",
                "Which editor plugins do you recommend?",
            ],
            "de": ["Welche Sprache soll ich für meine App nehmen?", "Wie baue ich eine neue API auf?"],
            "es": ["¿Qué lenguaje uso para mi aplicación?", "¿Cómo estructuro una API nueva?"],
            "fr": ["Quel langage choisir pour mon appli ?", "Comment structurer une nouvelle API ?"],
            "pt": ["Que linguagem uso no meu aplicativo?", "Como estruturo uma API nova?"],
            "ja": ["アプリの言語は何がいい?", "新しいAPIの構成を教えて"],
            "zh": ["我的应用该用什么语言?", "新接口怎么设计?"],
            "ko": ["앱에 어떤 언어를 쓸까요?", "새 API를 어떻게 설계하죠?"],
        },
        ("{n} rewrote her team's service in Go", "{n} gave a talk about Kubernetes at a meetup"),
    ),
    _d(
        "languages",
        {
            "en": [
                "Speaks fluent Spanish",
                "Is learning Japanese",
                "Native German speaker",
                "Studies Korean on weekends",
            ],
            "de": ["Lernt Japanisch", "Spricht fließend Spanisch"],
            "es": ["Aprende japonés", "Habla francés"],
            "fr": ["Apprend le japonais", "Parle couramment espagnol"],
            "pt": ["Aprende japonês", "Fala espanhol"],
            "ja": ["韓国語を勉強中", "スペイン語が話せる"],
            "zh": ["在学日语", "会说西班牙语"],
            "ko": ["일본어를 배우고 있어요", "스페인어를 할 줄 알아요"],
        },
        {
            "en": [
                "Recommend a podcast for my commute",
                "Which app should I use to practise?",
                "Find me a tutor for the summer",
                "What should I read to improve?",
            ],
            "de": ["Empfiehl mir einen Podcast", "Welche App soll ich zum Üben nutzen?"],
            "es": ["Recomiéndame un pódcast", "¿Qué aplicación uso para practicar?"],
            "fr": ["Conseille-moi un podcast", "Quelle appli pour pratiquer ?"],
            "pt": ["Me indique um podcast", "Que aplicativo uso para praticar?"],
            "ja": ["通勤中に聞くポッドキャストを教えて", "練習に使えるアプリは?"],
            "zh": ["推荐一个播客", "练习用什么应用好?"],
            "ko": ["팟캐스트 추천해 줘", "연습할 앱 뭐가 좋아요?"],
        },
        ("{n} signed up for evening Italian classes", "{n} spent a year in Seoul learning the language"),
    ),
    _d(
        "studies",
        {
            "en": [
                "Is doing a PhD in biology",
                "Studies law at university",
                "Is taking an online data science course",
                "Preparing for the bar exam",
            ],
            "de": ["Studiert Medizin", "Schreibt eine Doktorarbeit"],
            "es": ["Estudia medicina", "Hace un doctorado"],
            "fr": ["Étudie la médecine", "Prépare une thèse"],
            "pt": ["Estuda medicina", "Faz doutorado"],
            "ja": ["医学部の学生です", "博士課程にいる"],
            "zh": ["在读医学", "在读博士"],
            "ko": ["의대생이에요", "박사 과정 중이에요"],
        },
        {
            "en": [
                "How should I organise my revision?",
                "Help me plan my thesis chapters",
                "What can I do to focus better in the library?",
                "Suggest a schedule for exam week",
            ],
            "de": ["Wie soll ich für Prüfungen lernen?", "Hilf mir, meine Woche zu planen"],
            "es": ["¿Cómo organizo mis repasos?", "Ayúdame a planear mi semana de exámenes"],
            "fr": ["Comment organiser mes révisions ?", "Aide-moi à planifier ma semaine d'examens"],
            "pt": ["Como organizo minhas revisões?", "Planeje minha semana de provas"],
            "ja": ["試験勉強の計画を立てて", "論文の章立てを手伝って"],
            "zh": ["怎么安排复习?", "帮我规划考试周"],
            "ko": ["시험 공부 계획 좀 세워 줘", "논문 목차 좀 도와줘"],
        },
        ("{n} defended her thesis in June", "{n} enrolled in a night course on accounting"),
    ),
    _d(
        "goals",
        {
            "en": [
                "Wants to run a marathon next year",
                "Saving up to buy a house",
                "Wants to start a company",
                "Plans to move abroad",
            ],
            "de": ["Will ein Haus kaufen", "Möchte ein Unternehmen gründen"],
            "es": ["Quiere comprar una casa", "Quiere emprender"],
            "fr": ["Veut acheter une maison", "Veut créer son entreprise"],
            "pt": ["Quer comprar uma casa", "Quer abrir uma empresa"],
            "ja": ["家を買うために貯金している", "起業したい"],
            "zh": ["想买房", "想创业"],
            "ko": ["집을 사려고 저축 중이에요", "창업하고 싶어요"],
        },
        {
            "en": [
                "What should I focus on this year?",
                "Help me set priorities for the next months",
                "How should I spend my bonus?",
                "Make me a five-year plan",
            ],
            "de": ["Worauf soll ich mich dieses Jahr konzentrieren?", "Wie soll ich meinen Bonus nutzen?"],
            "es": ["¿En qué me enfoco este año?", "¿Qué hago con mi bono?"],
            "fr": ["Sur quoi me concentrer cette année ?", "Que faire de ma prime ?"],
            "pt": ["No que devo focar este ano?", "O que faço com meu bônus?"],
            "ja": ["今年は何に集中すべき?", "ボーナスの使い道は?"],
            "zh": ["今年我该专注什么?", "奖金怎么用?"],
            "ko": ["올해 뭐에 집중해야 할까요?", "보너스를 어떻게 쓸까요?"],
        },
        ("{n} hopes to open a café one day", "{n} is saving for a trip around the world"),
    ),
    _d(
        "home_city",
        {
            "en": [
                "Lives in Berlin",
                "Lives in a small village in Scotland",
                "Moved to Toronto last year",
                "Lives in Osaka",
            ],
            "de": ["Wohnt in Hamburg", "Lebt in München"],
            "es": ["Vive en Madrid", "Vive en Sevilla"],
            "fr": ["Habite à Lyon", "Vit à Marseille"],
            "pt": ["Mora em Lisboa", "Mora em São Paulo"],
            "ja": ["大阪に住んでいる", "札幌在住"],
            "zh": ["住在上海", "住在成都"],
            "ko": ["부산에 살아요", "서울에 살아요"],
        },
        {
            "en": [
                "What can I do this weekend nearby?",
                "Find a good dentist close to me",
                "What will the weather be like here tomorrow?",
                "Which local events are on this month?",
            ],
            "de": ["Was kann ich am Wochenende in der Nähe machen?", "Finde einen Zahnarzt in meiner Nähe"],
            "es": ["¿Qué hago este fin de semana cerca?", "Busca un dentista cerca de mí"],
            "fr": ["Que faire ce week-end près de chez moi ?", "Trouve un dentiste près de chez moi"],
            "pt": ["O que fazer no fim de semana perto de mim?", "Ache um dentista perto de mim"],
            "ja": ["週末に近くで何ができる?", "近所の歯医者を探して"],
            "zh": ["周末附近有什么好玩的?", "帮我找附近的牙医"],
            "ko": ["주말에 근처에서 뭐 할까요?", "근처 치과 찾아 줘"],
        },
        ("{n} moved to Lisbon with her partner", "{n} grew up in a small town in Ohio"),
    ),
    _d(
        "housing",
        {
            "en": [
                "Rents a small studio flat",
                "Owns a house with a big garden",
                "Lives on the fifth floor with no lift",
                "Shares a flat with two roommates",
            ],
            "de": ["Wohnt in einer kleinen Mietwohnung", "Hat ein Haus mit Garten"],
            "es": ["Vive en un piso pequeño de alquiler", "Tiene una casa con jardín"],
            "fr": ["Loue un petit studio", "A une maison avec jardin"],
            "pt": ["Aluga um apartamento pequeno", "Tem casa com quintal"],
            "ja": ["狭いワンルームに住んでいる", "庭付きの一軒家を持っている"],
            "zh": ["租了个小单间", "有带花园的房子"],
            "ko": ["작은 원룸에 살아요", "마당 있는 집이 있어요"],
        },
        {
            "en": [
                "Which sofa should I buy?",
                "How can I make my place feel bigger?",
                "Should I get a chest freezer?",
                "Ideas for decorating for the holidays",
            ],
            "de": ["Welches Sofa soll ich kaufen?", "Wie dekoriere ich für die Feiertage?"],
            "es": ["¿Qué sofá me compro?", "Ideas para decorar en Navidad"],
            "fr": ["Quel canapé acheter ?", "Des idées de décoration pour les fêtes"],
            "pt": ["Que sofá devo comprar?", "Ideias de decoração para as festas"],
            "ja": ["どのソファを買えばいい?", "部屋を広く見せるコツは?"],
            "zh": ["买什么沙发好?", "怎么让屋子显得大一点?"],
            "ko": ["어떤 소파를 살까요?", "방을 넓어 보이게 하려면?"],
        },
        ("{n} bought a cottage by the lake", "{n} renovated her kitchen over the summer"),
    ),
    _d(
        "vehicle",
        {
            "en": ["Drives an electric car", "Commutes by bike", "Does not have a driving licence", "Owns a motorbike"],
            "de": ["Fährt ein Elektroauto", "Fährt mit dem Rad zur Arbeit"],
            "es": ["Tiene un coche eléctrico", "Va en bici al trabajo"],
            "fr": ["Roule en voiture électrique", "Va au travail à vélo"],
            "pt": ["Tem um carro elétrico", "Vai de bicicleta ao trabalho"],
            "ja": ["電気自動車に乗っている", "自転車で通勤している"],
            "zh": ["开电动车", "骑自行车上班"],
            "ko": ["전기차를 타요", "자전거로 출근해요"],
        },
        {
            "en": [
                "How do I get to the airport on Friday?",
                "Plan a road trip for the long weekend",
                "What should I pack for my daily commute?",
                "How can I save on transport costs?",
            ],
            "de": ["Wie komme ich am Freitag zum Flughafen?", "Plane einen Ausflug fürs lange Wochenende"],
            "es": ["¿Cómo llego al aeropuerto el viernes?", "Planea una escapada para el puente"],
            "fr": ["Comment aller à l'aéroport vendredi ?", "Prépare une escapade pour le long week-end"],
            "pt": ["Como chego ao aeroporto na sexta?", "Planeje uma viagem para o feriado"],
            "ja": ["金曜に空港までどう行けばいい?", "連休の遠出を計画して"],
            "zh": ["周五怎么去机场?", "帮我规划长周末出游"],
            "ko": ["금요일에 공항에 어떻게 가죠?", "연휴 여행 계획 좀 짜 줘"],
        },
        ("{n} sold her old car and bought a scooter", "{n} passed her driving test on the third try"),
    ),
    _d(
        "pets",
        {
            "en": ["Has two cats", "Has a golden retriever", "Keeps a hamster", "Has a parrot"],
            "de": ["Hat zwei Katzen", "Hat einen Hund"],
            "es": ["Tiene dos gatos", "Tiene un perro"],
            "fr": ["A deux chats", "A un chien"],
            "pt": ["Tem dois gatos", "Tem um cachorro"],
            "ja": ["猫を二匹飼っている", "犬を飼っている"],
            "zh": ["养了两只猫", "养了一条狗"],
            "ko": ["고양이 두 마리를 키워요", "강아지를 키워요"],
        },
        {
            "en": [
                "Which plants are safe to keep at home?",
                "What food should I buy at the pet shop?",
                "Can I leave for a week-long holiday?",
                "How do I keep the furniture from getting scratched?",
            ],
            "de": ["Welche Pflanzen sind zu Hause unbedenklich?", "Welches Futter soll ich kaufen?"],
            "es": ["¿Qué plantas son seguras en casa?", "¿Qué comida compro en la tienda de animales?"],
            "fr": ["Quelles plantes sont sans danger à la maison ?", "Quelle nourriture acheter à l'animalerie ?"],
            "pt": ["Quais plantas são seguras em casa?", "Que ração devo comprar?"],
            "ja": ["ペットフードは何を買えばいい?", "家に置いても安全な植物は?"],
            "zh": ["该买什么宠物粮?", "家里养什么植物安全?"],
            "ko": ["어떤 사료를 사야 해요?", "집에 둬도 안전한 식물은?"],
        },
        ("{n} adopted a puppy from the shelter", "{n}'s cat had kittens last spring"),
    ),
    _d(
        "family",
        {
            "en": [
                "Has two young daughters",
                "Has a newborn son",
                "Takes care of an elderly mother",
                "Has a teenage son",
            ],
            "de": ["Hat zwei kleine Töchter", "Hat einen Sohn im Teenageralter"],
            "es": ["Tiene dos hijas pequeñas", "Tiene un bebé"],
            "fr": ["A deux petites filles", "A un bébé de trois mois"],
            "pt": ["Tem duas filhas pequenas", "Tem um bebê"],
            "ja": ["小さい娘が二人いる", "赤ちゃんがいる"],
            "zh": ["有两个小女儿", "刚生了儿子"],
            "ko": ["어린 딸이 둘 있어요", "갓난아기가 있어요"],
        },
        {
            "en": [
                "Ideas for a rainy Sunday afternoon",
                "Which car is best for us?",
                "Plan a summer holiday for all of us",
                "What gifts should I get for the holidays?",
            ],
            "de": ["Ideen für einen verregneten Sonntag", "Plane unseren Sommerurlaub"],
            "es": ["Ideas para un domingo lluvioso", "Planea nuestras vacaciones de verano"],
            "fr": ["Des idées pour un dimanche pluvieux", "Organise nos vacances d'été"],
            "pt": ["Ideias para um domingo chuvoso", "Planeje nossas férias de verão"],
            "ja": ["雨の日曜日に何をしよう?", "夏休みの旅行を計画して"],
            "zh": ["下雨的周日做什么?", "帮我们安排暑假旅行"],
            "ko": ["비 오는 일요일에 뭐 할까요?", "여름휴가 계획 좀 짜 줘"],
        },
        ("{n}'s daughter started school this autumn", "{n} visits her grandmother every Sunday"),
    ),
    _d(
        "partner",
        {
            "en": [
                "Married to Alex",
                "Has a girlfriend who lives abroad",
                "Getting married next June",
                "Recently divorced",
            ],
            "de": ["Ist verheiratet", "Heiratet nächsten Sommer"],
            "es": ["Está casado", "Se casa el año que viene"],
            "fr": ["Est marié", "Se marie l'été prochain"],
            "pt": ["É casado", "Vai se casar no ano que vem"],
            "ja": ["結婚している", "来年結婚する予定"],
            "zh": ["已婚", "明年结婚"],
            "ko": ["결혼했어요", "내년에 결혼해요"],
        },
        {
            "en": [
                "Plan a romantic evening",
                "What should I get for our anniversary?",
                "Ideas for a weekend away for two",
                "Help me write a sweet note",
            ],
            "de": ["Plane einen romantischen Abend", "Was schenke ich zum Jahrestag?"],
            "es": ["Planea una noche romántica", "¿Qué regalo para nuestro aniversario?"],
            "fr": ["Organise une soirée romantique", "Quoi offrir pour notre anniversaire ?"],
            "pt": ["Planeje uma noite romântica", "O que dar de presente de aniversário de namoro?"],
            "ja": ["ロマンチックな夜を計画して", "記念日のプレゼントは何がいい?"],
            "zh": ["安排一个浪漫的晚上", "纪念日送什么礼物?"],
            "ko": ["로맨틱한 저녁 계획 좀 짜 줘", "기념일 선물 뭐가 좋을까요?"],
        },
        ("{n} got engaged on a beach in Greece", "{n} and her husband celebrated ten years together"),
    ),
    _d(
        "music",
        {
            "en": ["Loves jazz", "Plays the guitar", "Listens to heavy metal", "Sings in a choir"],
            "de": ["Hört gern Jazz", "Spielt Gitarre"],
            "es": ["Le encanta el jazz", "Toca la guitarra"],
            "fr": ["Adore le jazz", "Joue de la guitare"],
            "pt": ["Adora jazz", "Toca violão"],
            "ja": ["ジャズが大好き", "ギターを弾く"],
            "zh": ["喜欢爵士乐", "会弹吉他"],
            "ko": ["재즈를 좋아해요", "기타를 쳐요"],
        },
        {
            "en": [
                "Make me a playlist for the evening",
                "Which concert should I go to?",
                "What should I practise this week?",
                "Recommend an album",
            ],
            "de": ["Stell mir eine Playlist zusammen", "Welches Konzert soll ich besuchen?"],
            "es": ["Hazme una lista de reproducción", "¿A qué concierto voy?"],
            "fr": ["Fais-moi une playlist pour ce soir", "À quel concert aller ?"],
            "pt": ["Monte uma playlist para a noite", "Que show devo ver?"],
            "ja": ["夜に聴くプレイリストを作って", "どのコンサートに行けばいい?"],
            "zh": ["给我做个歌单", "该去哪场演出?"],
            "ko": ["저녁에 들을 플레이리스트 만들어 줘", "어떤 공연에 갈까요?"],
        },
        ("{n} played the violin at her cousin's wedding", "{n} went to a rock festival in August"),
    ),
    _d(
        "reading",
        {
            "en": [
                "Loves science fiction novels",
                "Reads mostly history books",
                "Enjoys crime thrillers",
                "Is in a poetry book club",
            ],
            "de": ["Liest gern Science-Fiction", "Mag Krimis"],
            "es": ["Le gusta la ciencia ficción", "Lee novelas policiacas"],
            "fr": ["Aime la science-fiction", "Lit des romans policiers"],
            "pt": ["Gosta de ficção científica", "Lê romances policiais"],
            "ja": ["SF小説が好き", "ミステリーをよく読む"],
            "zh": ["喜欢科幻小说", "爱看侦探小说"],
            "ko": ["SF 소설을 좋아해요", "추리 소설을 즐겨 읽어요"],
        },
        {
            "en": [
                "Recommend a book I would enjoy",
                "What should I take to read on the beach?",
                "Suggest a gift for my own birthday list",
                "What should I read next?",
            ],
            "de": ["Empfiehl mir ein Buch", "Was soll ich im Urlaub lesen?"],
            "es": ["Recomiéndame un libro", "¿Qué leo en vacaciones?"],
            "fr": ["Conseille-moi un livre", "Que lire en vacances ?"],
            "pt": ["Me recomende um livro", "O que ler nas férias?"],
            "ja": ["おすすめの本を教えて", "休暇に何を読もう?"],
            "zh": ["推荐一本书给我", "假期读什么?"],
            "ko": ["책 추천해 줘", "휴가 때 뭘 읽을까요?"],
        },
        ("{n} finished a long fantasy series on the train", "{n} started a book club with neighbours"),
    ),
    _d(
        "screen",
        {
            "en": ["Loves Korean dramas", "Watches horror films", "Prefers documentaries", "Is a big anime fan"],
            "de": ["Schaut gern Dokumentarfilme", "Mag Horrorfilme"],
            "es": ["Le encantan los documentales", "Ve películas de terror"],
            "fr": ["Aime les documentaires", "Regarde des films d'horreur"],
            "pt": ["Adora documentários", "Gosta de filmes de terror"],
            "ja": ["韓国ドラマが好き", "アニメが大好き"],
            "zh": ["喜欢看韩剧", "喜欢看纪录片"],
            "ko": ["다큐멘터리를 좋아해요", "공포 영화를 즐겨 봐요"],
        },
        {
            "en": [
                "What should I watch tonight?",
                "Suggest a series for the weekend",
                "Pick a film for movie night",
                "Which streaming service is worth it for me?",
            ],
            "de": ["Was soll ich heute Abend schauen?", "Schlag mir eine Serie vor"],
            "es": ["¿Qué veo esta noche?", "Sugiéreme una serie"],
            "fr": ["Que regarder ce soir ?", "Propose-moi une série"],
            "pt": ["O que assisto hoje à noite?", "Me sugira uma série"],
            "ja": ["今夜は何を観よう?", "週末に観るシリーズを教えて"],
            "zh": ["今晚看什么?", "推荐一部剧"],
            "ko": ["오늘 밤 뭐 볼까요?", "주말에 볼 시리즈 추천해 줘"],
        },
        ("{n} binge-watched a cooking show all weekend", "{n} saw the new superhero film twice"),
    ),
    _d(
        "travel",
        {
            "en": [
                "Afraid of flying",
                "Prefers hiking holidays to beach resorts",
                "Travels with a wheelchair",
                "Gets seasick on boats",
            ],
            "de": ["Hat Flugangst", "Wandert gern im Urlaub"],
            "es": ["Tiene miedo a volar", "Prefiere vacaciones de senderismo"],
            "fr": ["A peur de l'avion", "Préfère les vacances de randonnée"],
            "pt": ["Tem medo de avião", "Prefere férias de trilha"],
            "ja": ["飛行機が怖い", "旅行では山歩きが好き"],
            "zh": ["怕坐飞机", "喜欢徒步旅行"],
            "ko": ["비행기 타는 걸 무서워해요", "여행 가면 등산을 좋아해요"],
        },
        {
            "en": [
                "Where should I go for my summer holiday?",
                "Plan a trip to Italy for me",
                "How should I get to Lisbon next month?",
                "Suggest a honeymoon destination",
            ],
            "de": ["Wohin soll ich im Sommer reisen?", "Plane eine Reise nach Italien"],
            "es": ["¿A dónde viajo este verano?", "Planea un viaje a Italia"],
            "fr": ["Où partir cet été ?", "Organise un voyage en Italie"],
            "pt": ["Para onde viajo nas férias?", "Planeje uma viagem à Itália"],
            "ja": ["夏休みはどこに行こう?", "イタリア旅行を計画して"],
            "zh": ["暑假去哪儿玩?", "帮我安排意大利之旅"],
            "ko": ["여름휴가 어디로 갈까요?", "이탈리아 여행 계획 좀 짜 줘"],
        },
        ("{n} took a cruise to Norway with her parents", "{n} backpacked through Peru for a month"),
    ),
    _d(
        "money",
        {
            "en": [
                "Is paying off a student loan",
                "Has a tight monthly budget",
                "Invests in index funds",
                "Is self-employed",
            ],
            "de": ["Zahlt einen Studienkredit ab", "Hat ein knappes Budget"],
            "es": ["Paga un préstamo estudiantil", "Tiene un presupuesto ajustado"],
            "fr": ["Rembourse un prêt étudiant", "A un budget serré"],
            "pt": ["Paga um empréstimo estudantil", "Tem orçamento apertado"],
            "ja": ["奨学金を返済中", "毎月の予算が厳しい"],
            "zh": ["在还助学贷款", "每月预算很紧"],
            "ko": ["학자금 대출을 갚고 있어요", "한 달 예산이 빠듯해요"],
        },
        {
            "en": [
                "Can I afford a new laptop this month?",
                "How should I plan my spending?",
                "What should I do with my savings?",
                "Is this holiday too expensive for me?",
            ],
            "de": ["Kann ich mir einen neuen Laptop leisten?", "Wie plane ich meine Ausgaben?"],
            "es": ["¿Puedo permitirme un portátil nuevo?", "¿Cómo planifico mis gastos?"],
            "fr": ["Puis-je m'offrir un nouvel ordinateur ?", "Comment planifier mes dépenses ?"],
            "pt": ["Posso comprar um notebook novo?", "Como planejo meus gastos?"],
            "ja": ["今月新しいパソコンを買える?", "出費の計画を立てて"],
            "zh": ["这个月买得起新电脑吗?", "怎么规划开销?"],
            "ko": ["이번 달에 노트북 사도 될까요?", "지출 계획 좀 세워 줘"],
        },
        ("{n} paid off her mortgage early", "{n} lost money on a stock tip"),
    ),
    _d(
        "cooking",
        {
            "en": ["Has no oven, only a microwave", "Bakes sourdough bread", "Owns an air fryer", "Is a beginner cook"],
            "de": ["Backt Sauerteigbrot", "Hat keinen Backofen"],
            "es": ["Hace pan de masa madre", "No tiene horno"],
            "fr": ["Fait du pain au levain", "N'a pas de four"],
            "pt": ["Faz pão de fermentação natural", "Não tem forno"],
            "ja": ["オーブンがない", "パンを焼くのが趣味"],
            "zh": ["家里没有烤箱", "会做酸面包"],
            "ko": ["오븐이 없어요", "빵 굽는 걸 좋아해요"],
        },
        {
            "en": [
                "How do I make a cake for Sunday?",
                "What can I cook for guests?",
                "Give me an easy lunch idea",
                "Which kitchen gadget should I buy?",
            ],
            "de": ["Wie backe ich einen Kuchen für Sonntag?", "Was koche ich für Gäste?"],
            "es": ["¿Cómo hago un pastel para el domingo?", "¿Qué cocino para invitados?"],
            "fr": ["Comment faire un gâteau pour dimanche ?", "Que cuisiner pour des invités ?"],
            "pt": ["Como faço um bolo para domingo?", "O que cozinho para visitas?"],
            "ja": ["日曜日のケーキの作り方は?", "お客さんに何を作ろう?"],
            "zh": ["周日怎么做蛋糕?", "请客做什么菜?"],
            "ko": ["일요일에 케이크 어떻게 만들죠?", "손님 오면 뭘 요리할까요?"],
        },
        ("{n} entered a baking contest at the county fair", "{n} learned to make pasta from her grandmother"),
    ),
    _d(
        "garden",
        {
            "en": [
                "Grows tomatoes on the balcony",
                "Has an allotment",
                "Keeps bees",
                "Has a shady north-facing garden",
            ],
            "de": ["Baut Tomaten auf dem Balkon an", "Hat einen Schrebergarten"],
            "es": ["Cultiva tomates en el balcón", "Tiene un huerto"],
            "fr": ["Cultive des tomates sur son balcon", "A un potager"],
            "pt": ["Planta tomates na varanda", "Tem uma horta"],
            "ja": ["ベランダでトマトを育てている", "家庭菜園をしている"],
            "zh": ["在阳台种番茄", "有块菜地"],
            "ko": ["베란다에서 토마토를 키워요", "텃밭을 가꿔요"],
        },
        {
            "en": [
                "What can I plant in April?",
                "How do I deal with slugs?",
                "Which fertiliser should I buy?",
                "What should I do outside this weekend?",
            ],
            "de": ["Was kann ich im April pflanzen?", "Welchen Dünger soll ich kaufen?"],
            "es": ["¿Qué planto en abril?", "¿Qué abono compro?"],
            "fr": ["Que planter en avril ?", "Quel engrais acheter ?"],
            "pt": ["O que planto em abril?", "Que adubo devo comprar?"],
            "ja": ["4月に何を植えればいい?", "どの肥料を買えばいい?"],
            "zh": ["四月种什么好?", "该买什么肥料?"],
            "ko": ["4월에 뭘 심을까요?", "어떤 비료를 살까요?"],
        },
        ("{n} won a prize for her roses", "{n} built raised beds with her father"),
    ),
    _d(
        "games",
        {
            "en": [
                "Plays chess online every evening",
                "Owns a Nintendo Switch",
                "Loves board games",
                "Plays competitive shooters on PC",
            ],
            "de": ["Spielt gern Brettspiele", "Hat eine Nintendo Switch"],
            "es": ["Le encantan los juegos de mesa", "Tiene una Nintendo Switch"],
            "fr": ["Adore les jeux de société", "A une Nintendo Switch"],
            "pt": ["Adora jogos de tabuleiro", "Tem um Nintendo Switch"],
            "ja": ["ボードゲームが好き", "Switchを持っている"],
            "zh": ["喜欢玩桌游", "有一台Switch"],
            "ko": ["보드게임을 좋아해요", "스위치를 갖고 있어요"],
        },
        {
            "en": [
                "What should I play this weekend?",
                "Suggest something fun for a night in with friends",
                "Which gift should I ask for?",
                "How can I get better at my hobby?",
            ],
            "de": ["Was soll ich am Wochenende spielen?", "Ideen für einen Abend mit Freunden"],
            "es": ["¿A qué juego este fin de semana?", "Ideas para una noche con amigos"],
            "fr": ["À quoi jouer ce week-end ?", "Des idées pour une soirée entre amis"],
            "pt": ["O que jogo no fim de semana?", "Ideias para uma noite com amigos"],
            "ja": ["週末に何で遊ぼう?", "友達と家で楽しめることは?"],
            "zh": ["周末玩什么?", "和朋友在家玩点什么?"],
            "ko": ["주말에 뭐 하고 놀까요?", "친구들이랑 집에서 뭐 할까요?"],
        },
        ("{n} won a local chess tournament", "{n} collects retro video game consoles"),
    ),
    _d(
        "sleep",
        {
            "en": [
                "Works night shifts and sleeps during the day",
                "Is an early riser, up at 5",
                "Has insomnia",
                "Is a night owl",
            ],
            "de": ["Steht jeden Tag um fünf auf", "Hat Schlafstörungen"],
            "es": ["Se levanta a las cinco", "Tiene insomnio"],
            "fr": ["Se lève à cinq heures", "Souffre d'insomnie"],
            "pt": ["Acorda às cinco", "Tem insônia"],
            "ja": ["朝5時に起きる", "不眠症です"],
            "zh": ["每天五点起床", "有失眠"],
            "ko": ["새벽 다섯 시에 일어나요", "불면증이 있어요"],
        },
        {
            "en": [
                "When should I schedule my workouts?",
                "Plan my daily routine",
                "What time should I book the call with my team?",
                "Should I have coffee this afternoon?",
            ],
            "de": ["Wann soll ich trainieren?", "Plane meinen Tagesablauf"],
            "es": ["¿Cuándo hago ejercicio?", "Organiza mi rutina diaria"],
            "fr": ["Quand faire du sport ?", "Organise ma journée type"],
            "pt": ["Quando devo me exercitar?", "Monte minha rotina diária"],
            "ja": ["いつ運動すればいい?", "一日のスケジュールを立てて"],
            "zh": ["什么时候锻炼好?", "帮我安排日常作息"],
            "ko": ["언제 운동하면 좋을까요?", "하루 일과 좀 짜 줘"],
        },
        ("{n} stayed up all night finishing a painting", "{n} started waking at dawn to paint"),
    ),
    _d(
        "clothes",
        {
            "en": [
                "Wears size 44 shoes",
                "Prefers minimalist black clothes",
                "Is very tall, 1.95 m",
                "Only wears natural fabrics",
            ],
            "de": ["Trägt Schuhgröße 44", "Mag schlichte schwarze Kleidung"],
            "es": ["Calza un 44", "Prefiere ropa negra sencilla"],
            "fr": ["Chausse du 44", "Préfère les vêtements noirs sobres"],
            "pt": ["Calça 44", "Prefere roupas pretas simples"],
            "ja": ["靴のサイズは28センチ", "シンプルな黒い服が好き"],
            "zh": ["穿44码的鞋", "喜欢简单的黑色衣服"],
            "ko": ["신발 사이즈는 280이에요", "심플한 검은 옷을 좋아해요"],
        },
        {
            "en": [
                "What should I wear to the wedding?",
                "Help me pick a winter coat",
                "Which trainers should I order online?",
                "Build me a capsule wardrobe",
            ],
            "de": ["Was ziehe ich zur Hochzeit an?", "Hilf mir, einen Wintermantel auszusuchen"],
            "es": ["¿Qué me pongo para la boda?", "Ayúdame a elegir un abrigo"],
            "fr": ["Que porter au mariage ?", "Aide-moi à choisir un manteau"],
            "pt": ["O que visto no casamento?", "Me ajude a escolher um casaco"],
            "ja": ["結婚式に何を着ればいい?", "冬のコートを選んで"],
            "zh": ["参加婚礼穿什么?", "帮我挑件冬天的外套"],
            "ko": ["결혼식에 뭘 입을까요?", "겨울 코트 고르는 것 좀 도와줘"],
        },
        ("{n} sewed her own dress for the party", "{n} bought a red coat in Milan"),
    ),
    _d(
        "drinks",
        {
            "en": ["Does not drink alcohol", "Drinks only decaf", "Loves green tea", "Collects whisky"],
            "de": ["Trinkt keinen Alkohol", "Trinkt gern grünen Tee"],
            "es": ["No bebe alcohol", "Le encanta el té verde"],
            "fr": ["Ne boit pas d'alcool", "Adore le thé vert"],
            "pt": ["Não bebe álcool", "Adora chá verde"],
            "ja": ["お酒を飲まない", "緑茶が好き"],
            "zh": ["不喝酒", "喜欢绿茶"],
            "ko": ["술을 안 마셔요", "녹차를 좋아해요"],
        },
        {
            "en": [
                "What should I order at the bar tonight?",
                "Pick something to toast with at the party",
                "Which café should I try?",
                "What gift for a cosy evening at home?",
            ],
            "de": ["Was bestelle ich heute an der Bar?", "Womit stoße ich auf der Feier an?"],
            "es": ["¿Qué pido en el bar esta noche?", "¿Con qué brindo en la fiesta?"],
            "fr": ["Que commander au bar ce soir ?", "Avec quoi trinquer à la fête ?"],
            "pt": ["O que peço no bar hoje?", "Com o que brindo na festa?"],
            "ja": ["今夜バーで何を頼もう?", "パーティーの乾杯は何にしよう?"],
            "zh": ["今晚在酒吧点什么?", "聚会上用什么干杯?"],
            "ko": ["오늘 밤 바에서 뭘 시킬까요?", "파티에서 뭘로 건배할까요?"],
        },
        ("{n} opened a small wine bar", "{n} gave up coffee for lent"),
    ),
    _d(
        "devices",
        {
            "en": ["Uses an iPhone", "Works on a Linux laptop", "Has an Android phone", "Uses a Mac at home"],
            "de": ["Hat ein iPhone", "Nutzt Linux"],
            "es": ["Usa un iPhone", "Trabaja con Linux"],
            "fr": ["A un iPhone", "Utilise Linux"],
            "pt": ["Usa iPhone", "Usa Linux"],
            "ja": ["iPhoneを使っている", "Linuxを使っている"],
            "zh": ["用苹果手机", "用Linux电脑"],
            "ko": ["아이폰을 써요", "리눅스를 써요"],
        },
        {
            "en": [
                "Which password manager should I install?",
                "How do I back up my photos?",
                "Recommend a good note-taking app",
                "How do I take a screenshot?",
            ],
            "de": ["Welchen Passwortmanager soll ich installieren?", "Wie sichere ich meine Fotos?"],
            "es": ["¿Qué gestor de contraseñas instalo?", "¿Cómo hago copia de mis fotos?"],
            "fr": ["Quel gestionnaire de mots de passe installer ?", "Comment sauvegarder mes photos ?"],
            "pt": ["Que gerenciador de senhas instalo?", "Como faço backup das fotos?"],
            "ja": ["パスワード管理アプリは何がいい?", "写真のバックアップ方法は?"],
            "zh": ["装哪个密码管理器?", "怎么备份照片?"],
            "ko": ["비밀번호 관리 앱 뭐 깔까요?", "사진 백업은 어떻게 해요?"],
        },
        ("{n} dropped her phone in the river", "{n} built her own desktop computer"),
    ),
    _d(
        "climate",
        {
            "en": ["Hates the cold", "Gets hay fever in spring", "Burns easily in the sun", "Cannot stand humid heat"],
            "de": ["Friert leicht", "Hat Heuschnupfen"],
            "es": ["Odia el frío", "Tiene alergia al polen"],
            "fr": ["Déteste le froid", "A le rhume des foins"],
            "pt": ["Odeia frio", "Tem rinite alérgica"],
            "ja": ["寒いのが苦手", "花粉症です"],
            "zh": ["很怕冷", "有花粉过敏"],
            "ko": ["추위를 많이 타요", "꽃가루 알레르기가 있어요"],
        },
        {
            "en": [
                "What should I pack for a week in Iceland?",
                "Is May a good month for my trip?",
                "Plan an outdoor picnic for Saturday",
                "What should I bring to the beach?",
            ],
            "de": ["Was packe ich für Island ein?", "Plane ein Picknick für Samstag"],
            "es": ["¿Qué llevo para Islandia?", "Planea un pícnic para el sábado"],
            "fr": ["Que mettre dans ma valise pour l'Islande ?", "Organise un pique-nique samedi"],
            "pt": ["O que levo para a Islândia?", "Planeje um piquenique no sábado"],
            "ja": ["アイスランドに何を持っていけばいい?", "土曜日のピクニックを計画して"],
            "zh": ["去冰岛带什么?", "安排周六的野餐"],
            "ko": ["아이슬란드에 뭘 챙겨 갈까요?", "토요일 소풍 계획 좀 세워 줘"],
        },
        ("{n} got sunburnt at the lake", "{n} moved south to escape the winters"),
    ),
    _d(
        "faith",
        {
            "en": [
                "Is Muslim and keeps halal",
                "Is Jewish and keeps kosher",
                "Fasts during Ramadan",
                "Goes to church every Sunday",
            ],
            "de": ["Ist Muslim", "Geht sonntags in die Kirche"],
            "es": ["Es musulmán", "Va a misa los domingos"],
            "fr": ["Est musulman", "Va à la messe le dimanche"],
            "pt": ["É muçulmano", "Vai à missa aos domingos"],
            "ja": ["イスラム教徒です", "毎週日曜に教会に行く"],
            "zh": ["是穆斯林", "每周日去教堂"],
            "ko": ["무슬림이에요", "일요일마다 교회에 가요"],
        },
        {
            "en": [
                "Which restaurant should we book for the team lunch?",
                "Plan my weekend mornings",
                "What should I cook for the holidays?",
                "Schedule a dinner with friends next month",
            ],
            "de": ["Welches Restaurant buchen wir fürs Team?", "Plane meine Wochenenden"],
            "es": ["¿Qué restaurante reservamos para el equipo?", "Organiza mis fines de semana"],
            "fr": ["Quel restaurant réserver pour l'équipe ?", "Organise mes week-ends"],
            "pt": ["Que restaurante reservamos para a equipe?", "Organize meus fins de semana"],
            "ja": ["チームのランチはどの店を予約しよう?", "週末の予定を立てて"],
            "zh": ["团队午餐订哪家餐厅?", "安排我的周末"],
            "ko": ["팀 점심 어느 식당을 예약할까요?", "주말 일정 좀 짜 줘"],
        },
        ("{n} went on a pilgrimage to Santiago", "{n} hosted a Passover dinner for friends"),
    ),
)

WORLD = {
    "en": [
        "What is the capital of Australia?",
        "When was the Berlin Philharmonic founded?",
        "How far is the Moon from Earth?",
        "Who painted the Mona Lisa?",
        "Explain how photosynthesis works",
        "What is the boiling point of water at high altitude?",
        "Summarise the causes of World War I",
        "How many bones does an adult human have?",
        "Why is the sky blue?",
        "What does HTTP 404 mean?",
        "Convert 30 degrees Celsius to Fahrenheit",
        "Who discovered penicillin?",
    ],
    "de": [
        "Wie hoch ist die Zugspitze?",
        "Wer schrieb Faust?",
        "Was ist die Hauptstadt von Kanada?",
        "Erkläre die Relativitätstheorie",
        "Wann fiel die Berliner Mauer?",
    ],
    "es": [
        "¿Quién escribió Don Quijote?",
        "¿Cuál es el río más largo del mundo?",
        "¿Qué es un agujero negro?",
        "¿Cuándo llegó Colón a América?",
        "Explica la fotosíntesis",
    ],
    "fr": [
        "Qui a peint les Nymphéas ?",
        "Quelle est la capitale du Japon ?",
        "Explique la gravité",
        "En quelle année a eu lieu la Révolution française ?",
        "Combien de planètes compte le système solaire ?",
    ],
    "pt": [
        "Quem descobriu o Brasil?",
        "Qual é a capital da Austrália?",
        "O que é inflação?",
        "Quantos ossos tem o corpo humano?",
        "Explique a teoria da evolução",
    ],
    "ja": ["富士山の高さは?", "日本の首都はどこ?", "光合成とは何?", "源氏物語の作者は誰?", "円周率を教えて"],
    "zh": ["长城有多长?", "水的沸点是多少?", "谁发明了造纸术?", "法国的首都是哪里?", "解释一下万有引力"],
    "ko": [
        "한글은 누가 만들었나요?",
        "지구에서 달까지 거리는?",
        "프랑스의 수도는 어디예요?",
        "광합성이 뭐예요?",
        "임진왜란은 언제 일어났나요?",
    ],
}

# Held out from all training: whole domains (unseen subjects), and in the other domains English's
# last request and, in every other domain, each other language's last (unseen phrasings).
HELD_OUT_DOMAINS = frozenset({"pets", "money", "clothes", "climate", "garden"})


@dataclass(frozen=True)
class Pair:
    domain: str
    request: str
    request_language: str
    fact: str
    fact_language: str
    held_out: bool


def _held_request(domain: Domain, language: str, request: str) -> bool:
    if domain.name in HELD_OUT_DOMAINS:
        return True
    # English's last of four requests; another language's last of two in every other domain
    alternate = language == "en" or DOMAINS.index(domain) % 2 == 1
    return alternate and request == domain.requests[language][-1]


def pairs() -> list[Pair]:
    """Every request with every fact of its domain in its own language, and across it and
    English both ways (a vault's facts are in the language they were said in)."""
    out = []
    for d in DOMAINS:
        for lang in LANGUAGES:
            for fact_lang in dict.fromkeys((lang, "en", *(LANGUAGES if lang == "en" else ()))):
                for request in d.requests[lang]:
                    held = _held_request(d, lang, request)
                    out += [Pair(d.name, request, lang, fact, fact_lang, held) for fact in d.facts[fact_lang]]
    return out


def third_person() -> list[tuple[str, str]]:
    """(domain, sentence) about named other people: each domain's sentences with six names."""
    out = []
    for k, d in enumerate(DOMAINS):
        for j, template in enumerate(d.others):
            for i in range(6):
                name = NAMES[(k * 2 + j * 5 + i) % len(NAMES)]
                out.append((d.name, template.format(n=name)))
    return out


def world(held_out: bool) -> list[str]:
    """World questions: each language's first ones train the gate, the last two are held out."""
    return [q for qs in WORLD.values() for q in (qs[-2:] if held_out else qs[:-2])]


def facts() -> list[tuple[str, str, str]]:
    """(domain, language, fact) for every fact."""
    return [(d.name, lang, f) for d in DOMAINS for lang in LANGUAGES for f in d.facts[lang]]


def digest() -> str:
    body = json.dumps(
        [[d.name, d.facts, d.requests, d.others] for d in DOMAINS] + [WORLD, sorted(HELD_OUT_DOMAINS)],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(body.encode()).hexdigest()
