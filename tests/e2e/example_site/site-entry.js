    {
      id: "example-chat",
      label: "Example Chat",
      hosts: ["chat.example"],
      startUrl: "https://chat.example/new",
      enabled: true,
    },
